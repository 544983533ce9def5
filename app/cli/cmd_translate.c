/* cmd_translate.c - `stepformer translate`: greedy or beam-search decoding
 * of sentences given as arguments or read from standard input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "decode.h"

static const char *HELP =
    "usage: stepformer translate [--model FILE] [--beam K] [--alpha A] [SENTENCE...]\n"
    "\n"
    "Translate each sentence (or each line of standard input when none is\n"
    "given) and print one output line per input. Greedy decoding by default;\n"
    "--beam K uses beam search with K hypotheses and the length penalty\n"
    "((5+|Y|)/6)^A (A = 0.6 by default, as in the paper). Unknown words are\n"
    "reported on stderr and become <unk>. A bad line prints an empty output\n"
    "line, a message on stderr, and makes the exit status 1.\n";

typedef struct Ctx {
    TfModel m;
    TfTrace tr;
    DecodeOpts o;
    char *out;
    size_t out_cap;
} Ctx;

static int translate_one(Ctx *x, const char *text, const char *C)
{
    int ids[TF_MAX_LEN];
    int max_src = x->m.cfg.max_len;
    int S = cli_encode(&x->m.src_vocab, text, ids, max_src, C, "source");
    if (S < 0) {
        putchar('\n');
        return 1;
    }
    TfErr err;
    DecodeResult g;
    if (tf_translate(&x->m, &x->tr, ids, S, &x->o, &g, &err)) {
        putchar('\n');
        return cli_fail(C, "%s", err.msg);
    }
    const int *res = g.ids;
    int n = g.n;
    size_t need = vocab_decode(&x->m.tgt_vocab, res, n, x->out, x->out_cap);
    if (need + 1 > x->out_cap) {
        char *p = realloc(x->out, need + 1);
        if (p) {
            x->out = p;
            x->out_cap = need + 1;
            vocab_decode(&x->m.tgt_vocab, res, n, x->out, x->out_cap);
        }
    }
    puts(x->out);
    decode_result_free(&g);
    return 0;
}

/* The sentences given as arguments; other "--" words are unknown options. */
typedef struct Positional {
    char **arg;
    int n;
} Positional;

static int positional(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad)
{
    Positional *p = ctx;
    (void)argc;
    if (argv[*i][0] == '-' && argv[*i][1] == '-' && argv[*i][2])
        *bad = cli_fail(cmd, "unknown option '%s' (see --help)", argv[*i]);
    else
        p->arg[p->n++] = argv[*i];
    return 1;
}

int cmd_translate(int argc, char **argv)
{
    const char *C = "translate", *model = NULL;
    static Ctx x;
    decode_opts_default(&x.o);
    Positional ps = {calloc((size_t)argc, sizeof(char *)), 0};
    if (!ps.arg)
        return cli_fail(C, "out of memory");
    const CliOpt opts[] = {
        CLI_STR_OPT("model", &model), CLI_INT_OPT("beam", &x.o.beam, 1, 64),
        CLI_NUM_M("alpha", &x.o.alpha, 0, 10, "--alpha must be a number in 0..10, not '%s'"),
    };
    int bad = cli_parse(argc, argv, opts, CLI_N(opts), positional, &ps, C, HELP);
    char **pos = ps.arg;
    int first_pos = ps.n;
    if (bad < 0) {
        free(pos);
        return 0;
    }
    char path[4096];
    if (!bad && !model)
        model = cli_data_path("assets/models/en2zh.safetensors", path, sizeof path);
    TfErr err;
    if (bad || cli_load_model(&x.m, model, C)) {
        free(pos);
        return 1;
    }
    int rc = 0;
    if (trace_build(&x.tr, &x.m.cfg, x.o.beam, 8, 0, &err)) {
        rc = cli_fail(C, "%s", err.msg);
    } else if (first_pos) {
        for (int i = 0; i < first_pos; i++)
            rc |= translate_one(&x, pos[i], C);
    } else {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        char where[64]; /* messages name the input line */
        for (long no = 1; (n = getline(&line, &cap, stdin)) >= 0; no++) {
            snprintf(where, sizeof where, "%s (line %ld)", C, no);
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                line[--n] = 0;
            if (memchr(line, 0, (size_t)n)) {
                putchar('\n');
                rc |= cli_fail(where, "input line contains a NUL byte");
                continue;
            }
            rc |= translate_one(&x, line, where);
            fflush(stdout);
        }
        free(line);
    }
    trace_free(&x.tr);
    model_free(&x.m);
    free(x.out);
    free(pos);
    return rc;
}
