/* cmd_translate.c - `stepformer translate`: greedy, beam-search or sampled
 * decoding of sentences given as arguments or read from standard input,
 * with the experiment flags (cli_exp.h) and forced tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_exp.h"
#include "commands.h"
#include "decode.h"
#include "file.h"
#include "finite.h"
#include "text.h"

static const char *HELP =
    "usage: stepformer translate [--model FILE|DIR] [--target-lang LANG] [--beam K] [--alpha A]\n"
    "                            [--sample [--temperature T] [--top-k K] [--top-p P]\n"
    "                             [--seed N] [--samples N]] [--force STEP:TOKEN]...\n"
    "                            [--src-ids 5,6,7]... " CLI_EXP_USAGE "\n"
    "                            [--patch-from TEXT --patch enc:L:H] [SENTENCE...]\n"
    "\n"
    "Translate each sentence (or each line of standard input when none is\n"
    "given) and print one output line per input. Greedy decoding by default;\n"
    "--beam K uses beam search with K hypotheses and the length penalty\n"
    "((5+|Y|)/6)^A (A = 0.6 by default, as in the paper). Unknown words are\n"
    "reported on stderr and become <unk>. --src-ids gives a source as ids\n"
    "(<pad>=0 <bos>=1 <eos>=2 <unk>=3 can be given only this way). A bad line\n"
    "prints an empty output line, a message on stderr, and makes the exit\n"
    "status 1; a NUL byte (binary input), or a line over 16 MiB on a pipe or\n"
    "device, stops reading at once.\n"
    "\n"
    "A MarianMT / OPUS-MT folder (--model DIR) splits text with its\n"
    "source.spm and writes the output with target.spm. --target-lang LANG\n"
    "puts the language tag >>LANG<< in front of each sentence (opus-mt-en-zh\n"
    "needs one, e.g. --target-lang cmn_Hans); a tag the vocabulary does not\n"
    "hold is an error.\n"
    "\n"
    "--sample draws each token from softmax(z/T) (T = --temperature, 1 by\n"
    "default; small T is greedy, large T flattens), restricted to the K most\n"
    "probable (--top-k, 0 = all) and to the smallest set reaching P\n"
    "(--top-p, 1 = all); <pad> and <bos> are never drawn. It prints --samples\n"
    "N lines per input (1 by default); sample k (from 0) uses the seed N + k\n"
    "(--seed, 0 by default), so the same seed gives the same samples.\n"
    "--force STEP:TOKEN puts token id TOKEN at output step STEP (from 0)\n"
    "and lets generation go on from there (repeatable; greedy or sampling).\n"
    "--patch-from TEXT --patch enc:L:H (activation patching): encoder head H\n"
    "of layer L takes its output (before W_O) from a pass over the source TEXT,\n"
    "which must have as many tokens as each sentence; the decoder then\n"
    "generates from that encoder output. Only encoder heads: a decoder or\n"
    "cross-attention head's output depends on the decoder input, which the\n"
    "generation is still making (patch those with dump --tgt, teacher forced).\n"
    "\n" CLI_EXP_HELP;

typedef struct Ctx {
    TfModel m;
    TfTrace tr;
    DecodeOpts o;
    int samples;
    int patch_len; /* --patch: the donor's source tokens (0: no patch) */
    char tag[128]; /* --target-lang's ">>lang<< ", or "" */
} Ctx;

/* One output line: the text as the model's tokenizer writes it (target.spm
 * for a MarianMT folder), control characters escaped. */
static void print_ids(Ctx *x, const int *res, int n)
{
    TfErr err;
    char *text = NULL;
    if (tf_text_decode(&x->m, res, n, &text, &err) < 0)
        cli_warn("translate", "%s", err.msg);
    cli_put_safe(stdout, text ? text : "");
    free(text);
    putchar('\n');
}

static int translate_ids(Ctx *x, const int *ids, int S, const char *C)
{
    TfErr err;
    DecodeOpts o = x->o;
    int n = x->o.sample ? x->samples : 1;
    if (tf_exp_check_source(&x->tr.exp, S, &err)) {
        for (int k = 0; k < n; k++)
            putchar('\n');
        return cli_fail(C, "%s", err.msg);
    }
    if (x->patch_len && S != x->patch_len) {
        for (int k = 0; k < n; k++)
            putchar('\n');
        return cli_fail(C, "--patch-from has %d source tokens and this sentence %d: an encoder head is patched from a "
                        "sentence of the same length", x->patch_len, S);
    }
    /* a forced step the output cannot reach is said, not ignored */
    int max_out = decode_max_out(&x->m, &x->tr, S);
    for (int f = 0; f < o.n_force; f++)
        if (o.force[f].step >= max_out) {
            for (int k = 0; k < n; k++)
                putchar('\n');
            return cli_fail(C, "--force %d:%d: this sentence's output has at most %d steps (0..%d)", o.force[f].step,
                            o.force[f].token, max_out, max_out - 1);
        }
    for (int k = 0; k < n; k++) {
        DecodeResult g;
        o.seed = x->o.seed + (uint64_t)k;
        if (tf_translate(&x->m, &x->tr, ids, S, &o, &g, &err) || tf_check_finite(&x->tr, &err)) {
            decode_result_free(&g);
            for (; k < n; k++)
                putchar('\n');
            return cli_fail(C, "%s", err.msg);
        }
        for (int f = 0; f < o.n_force; f++)
            if (o.force[f].step >= g.n)
                cli_warn(C, "--force %d:%d: the output ended at step %d, before it", o.force[f].step,
                         o.force[f].token, g.n - 1);
        print_ids(x, g.ids, g.n);
        decode_result_free(&g);
    }
    return 0;
}

static int translate_one(Ctx *x, const char *text, const char *C)
{
    int ids[TF_MAX_LEN];
    char *tagged = NULL;
    if (x->tag[0] && asprintf(&tagged, "%s%s", x->tag, text) < 0)
        tagged = NULL;
    if (x->tag[0] && !tagged)
        return cli_fail(C, "out of memory");
    int S = cli_encode(&x->m, 0, tagged ? tagged : text, ids, x->m.cfg.max_len, C);
    free(tagged);
    if (S < 0) {
        for (int k = 0; k < (x->o.sample ? x->samples : 1); k++)
            putchar('\n');
        return 1;
    }
    return translate_ids(x, ids, S, C);
}

/* The sentences given as arguments, --src-ids, --force and the experiment
 * flags; other "--" words are unknown options. */
typedef struct Positional {
    const char **arg; /* sentences and id lists, in order */
    unsigned char *is_ids;
    int n;
    CliExp x;
    const char *force[DEC_MAX_FORCE];
    int n_force;
} Positional;

static int positional(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad)
{
    Positional *p = ctx;
    const char *v;
    if (cli_exp_more(argv, argc, i, &p->x, cmd, bad))
        return 1;
    if (cli_opt(argv, argc, i, "src-ids", &v, cmd, bad)) {
        if (v) {
            p->is_ids[p->n] = 1;
            p->arg[p->n++] = v;
        }
        return 1;
    }
    if (cli_opt(argv, argc, i, "force", &v, cmd, bad)) {
        if (v && p->n_force >= DEC_MAX_FORCE)
            *bad = cli_fail(cmd, "--force %s: at most %d forced tokens", v, DEC_MAX_FORCE);
        else if (v)
            p->force[p->n_force++] = v;
        return 1;
    }
    if (argv[*i][0] == '-' && argv[*i][1] == '-' && argv[*i][2])
        *bad = cli_fail(cmd, "unknown option '%s' (see --help)", argv[*i]);
    else
        p->arg[p->n++] = argv[*i];
    return 1;
}

/* --src-ids: the ids exactly as given, checked against the vocabulary. */
static int translate_idlist(Ctx *x, const char *list, const char *C)
{
    int ids[TF_MAX_LEN];
    int S = cli_id_list(&x->m, list, 0, ids, C), bad = S < 0;
    if (bad) {
        for (int k = 0; k < (x->o.sample ? x->samples : 1); k++)
            putchar('\n');
        return 1;
    }
    return translate_ids(x, ids, S, C);
}

/* Each line of standard input (tf_read_line: at most 16 MiB a line). An
 * over-long line of a file is skipped (an empty output line); a NUL byte,
 * or an over-long line on a pipe or device (/dev/zero, a FIFO that never
 * sends a newline), stops reading at once. */
static int translate_stdin(Ctx *x, const char *C)
{
    char *line = NULL, where[64], why[96];
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    for (long no = 1; (n = tf_read_line(stdin, &line, &cap, TF_LINE_MAX)) != TF_LINE_EOF; no++) {
        snprintf(where, sizeof where, "%s: <stdin>:%ld", C, no);
        if (n < 0) {
            putchar('\n');
            fprintf(stderr, "stepformer %s: %s\n", where, tf_line_error(n, TF_LINE_MAX, why, sizeof why));
            rc = 1;
            if (n == TF_LINE_LONG)
                continue;
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        rc |= translate_one(x, line, where);
        fflush(stdout);
    }
    free(line);
    return rc;
}

int cmd_translate(int argc, char **argv)
{
    const char *C = "translate", *model = NULL, *lang = NULL, *patch = NULL, *patch_from = NULL;
    float *donor = NULL;
    static Ctx x;
    static Positional ps;
    memset(&ps, 0, sizeof ps);
    decode_opts_default(&x.o);
    x.samples = 1;
    int seed = 0;
    ps.arg = calloc((size_t)argc, sizeof *ps.arg);
    ps.is_ids = calloc((size_t)argc, 1);
    if (!ps.arg || !ps.is_ids) {
        free(ps.arg);
        free(ps.is_ids);
        return cli_fail(C, "out of memory");
    }
    const CliOpt opts[] = {
        CLI_STR_OPT("model", &model), CLI_STR_OPT("target-lang", &lang), CLI_INT_OPT("beam", &x.o.beam, 1, 64),
        CLI_NUM_M("alpha", &x.o.alpha, 0, 10, "--alpha must be a number in 0..10, not '%s'"),
        CLI_FLAG_OPT("sample", &x.o.sample),
        CLI_NUM_OPT("temperature", &x.o.sampling.temperature, SAMPLE_T_MIN, SAMPLE_T_MAX),
        CLI_INT_OPT("top-k", &x.o.sampling.top_k, 0, 1000000000),
        CLI_NUM_M("top-p", &x.o.sampling.top_p, 1e-6, 1, "--top-p must be a number in (0, 1], not '%s'"),
        CLI_INT_OPT("seed", &seed, 0, 2147483647), CLI_INT_OPT("samples", &x.samples, 1, 100000),
        CLI_STR_OPT("patch", &patch), CLI_STR_OPT("patch-from", &patch_from),
    };
    int bad = cli_parse(argc, argv, opts, CLI_N(opts), positional, &ps, C, HELP);
    x.o.seed = (uint64_t)seed;
    int tuned = x.o.sampling.temperature != 1 || x.o.sampling.top_k || x.o.sampling.top_p != 1 ||
                seed || x.samples != 1;
    if (!bad && tuned && !x.o.sample)
        bad = cli_fail(C, "--temperature, --top-k, --top-p, --seed and --samples go with --sample");
    if (!bad && x.o.sample && x.o.beam > 1)
        bad = cli_fail(C, "--sample draws one token at a time: it does not go with --beam");
    if (!bad && ps.n_force && x.o.beam > 1)
        bad = cli_fail(C, "--force goes with greedy decoding or --sample, not --beam");
    if (!bad && !patch != !patch_from)
        bad = cli_fail(C, "--patch-from TEXT and --patch enc:L:H go together");
    /* generation makes the decoder input as it goes: a decoder-side head has
     * no donor output for a prefix the donor pass never read */
    if (!bad && patch && strncmp(patch, "enc:", 4))
        bad = cli_fail(C, "--patch %s: translate patches encoder heads only (enc:L:H); a decoder or cross-attention "
                       "head depends on the decoder input the generation is making (use dump --tgt)", patch);
    TfErr err;
    int rc = bad < 0 ? 0 : 1;
    if (bad || cli_load_model(&x.m, model, C))
        goto done;
    x.tag[0] = 0;
    if (lang) {
        char tag[sizeof x.tag - 1];
        if (tf_lang_tag(&x.m, lang, tag, sizeof tag, &err)) {
            cli_fail(C, "--target-lang %s: %s", lang, err.msg);
            goto done_model;
        }
        snprintf(x.tag, sizeof x.tag, "%s ", tag);
    }
    for (int k = 0; k < ps.n_force; k++)
        if (decode_add_force(&x.o, ps.force[k], x.m.cfg.tgt_vocab, &err)) {
            cli_fail(C, "%s", err.msg);
            goto done_model;
        }
    TfExperiment e;
    if (cli_exp_build(&ps.x, &x.m.cfg, 0, &e, C))
        goto done_model;
    rc = 0;
    if (trace_build(&x.tr, &x.m.cfg, x.o.beam, 8, 0, &err)) {
        rc = cli_fail(C, "%s", err.msg);
        goto done_model;
    }
    x.patch_len = 0;
    if (patch) { /* the donor's encoder pass; its decoder reads the start token alone */
        int ids[TF_MAX_LEN], start = cfg_start_id(&x.m.cfg);
        int n = cli_encode(&x.m, 0, patch_from, ids, x.m.cfg.max_len, C);
        if (n < 0 || cli_patch_donor(&x.m, &e, patch, patch_from, n, &start, 1, &donor, C)) {
            rc = 1;
            trace_free(&x.tr);
            goto done_model;
        }
        x.patch_len = n;
    }
    x.tr.exp = e;
    if (ps.n) {
        for (int i = 0; i < ps.n; i++)
            rc |= ps.is_ids[i] ? translate_idlist(&x, ps.arg[i], C) : translate_one(&x, ps.arg[i], C);
    } else {
        rc = translate_stdin(&x, C);
    }
    trace_free(&x.tr);
done_model:
    free(donor);
    model_free(&x.m);
done:
    free(ps.arg);
    free(ps.is_ids);
    return rc;
}
