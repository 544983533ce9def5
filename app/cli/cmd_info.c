/* cmd_info.c - `stepformer info`: config, parameter counts, FLOPs. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "paths.h"
#include "cli.h"
#include "commands.h"

static const char *HELP =
    "usage: stepformer info (--model FILE | --preset NAME [--vocab N]) [--len N] [--json]\n"
    "       stepformer info --paths\n"
    "\n"
    "Print the configuration, the parameter count by component and in total,\n"
    "and the FLOPs of one forward pass over N source and N target tokens\n"
    "(default 32; matrix products, 2 FLOPs per multiply-add).\n"
    "--paths prints where the lessons and models are looked for, in order\n"
    "($STEPFORMER_DATADIR, ../share/stepformer beside the program, the\n"
    "installed prefix, the source tree, the current folder), what each\n"
    "holds, and which files are used; exit status 1 if any is missing.\n";

static void group(char *buf, size_t cap, size_t v)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%zu", v), o = 0;
    for (int i = 0; i < n && o + 2 < (int)cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
}

static void print_text(const TfModel *m, const char *src, int len)
{
    const TfConfig *c = &m->cfg;
    TfParamCount pc = cfg_param_count(c);
    TfFlops f = cfg_flops(c, len, len);
    char a[32];
    printf("model        ");
    cli_put_safe(stdout, src);
    putchar('\n');
    printf("kind         %s\n", c->kind == TF_KIND_MARIAN ? "MarianMT (Hugging Face / OPUS-MT)" : "Stepformer");
    printf("d_model      %d\n", c->d_model);
    printf("heads        %d (d_k = d_v = %d)\n", c->n_heads, c->d_model / c->n_heads);
    printf("d_ff         %d\n", c->d_ff);
    printf("layers       %d encoder + %d decoder\n", c->n_enc, c->n_dec);
    printf("max_len      %d\n", c->max_len);
    printf("activation   %s%s\n", cfg_act_name(c->act), c->act == TF_ACT_RELU ? " (as in the paper)" : " (the paper: ReLU)");
    printf("positions    sinusoidal, %s\n", c->pe_layout == TF_PE_HALVES ? "halves (sin | cos)" : "interleaved (sin, cos pairs)");
    printf("embeddings   %s\n", c->no_embed_scale ? "not scaled" : "x sqrt(d_model)");
    printf("special ids  pad %d, eos %d, unk %d, decoder start %d\n", cfg_pad_id(c), cfg_eos_id(c),
           cfg_unk_id(c), cfg_start_id(c));
    printf("norm         %s\n", c->norm == TF_NORM_PRE ? "pre-LN (x + Sublayer(LN(x)), final LN)"
                                                         : "post-LN (LN(x + Sublayer(x)), as in the paper)");
    printf("tied         %s\n", c->tie == TF_TIE_ALL ? "source embedding = target embedding = pre-softmax projection"
                                : c->tie == TF_TIE_GENERATOR ? "target embedding = pre-softmax projection"
                                                             : "no (three separate matrices)");
    if (m->tok) /* a MarianMT folder: one vocab.json over two sentencepiece models */
        printf("vocabulary   %d sentencepiece pieces (vocab.json; source.spm splits, target.spm joins)\n",
               c->tgt_vocab);
    else
        printf("vocabulary   source %d (%s), target %d (%s)\n", c->src_vocab,
               m->src_vocab.mode == TOK_CHAR ? "characters" : "words", c->tgt_vocab,
               m->tgt_vocab.mode == TOK_CHAR ? "characters" : "words");
    printf("parameters\n");
    group(a, sizeof a, pc.embed);
    printf("  embeddings %14s\n", a);
    group(a, sizeof a, pc.encoder);
    printf("  encoder    %14s\n", a);
    group(a, sizeof a, pc.decoder);
    printf("  decoder    %14s\n", a);
    group(a, sizeof a, pc.generator);
    printf("  generator  %14s%s\n", a, c->tie != TF_TIE_NONE ? "  (bias only; weight tied)" : "");
    group(a, sizeof a, pc.total);
    printf("  total      %14s  (%.1fM)\n", a, pc.total / 1e6);
    printf("forward FLOPs at %d source + %d target tokens\n", len, len);
    printf("  encoder    %10.3f GFLOP\n", f.encoder / 1e9);
    printf("  decoder    %10.3f GFLOP\n", f.decoder / 1e9);
    printf("  generator  %10.3f GFLOP\n", f.generator / 1e9);
    printf("  total      %10.3f GFLOP  (%.2f MFLOP per target token)\n", f.total / 1e9,
           f.total / len / 1e6);
    for (int i = 0; i < m->n_meta; i++) {
        /* keys and values come from the file: escape what would drive the terminal */
        char k[256];
        printf("%-12s ", cli_safe(k, sizeof k, m->meta[i].key));
        cli_put_safe(stdout, m->meta[i].val);
        putchar('\n');
    }
}

static void print_json(const TfModel *m, const char *src, int len)
{
    const TfConfig *c = &m->cfg;
    TfParamCount pc = cfg_param_count(c);
    TfFlops f = cfg_flops(c, len, len);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", src);
    for (int k = 0; k < CFG_N_SIZES; k++)
        cJSON_AddNumberToObject(o, CFG_SIZES[k].key, cfg_size_of(c, k));
    cJSON_AddStringToObject(o, "norm", c->norm == TF_NORM_PRE ? "pre" : "post");
    cJSON_AddStringToObject(o, "kind", c->kind == TF_KIND_MARIAN ? "marian" : "stepformer");
    cJSON_AddStringToObject(o, "activation", cfg_act_name(c->act));
    cJSON_AddStringToObject(o, "pe_layout", cfg_pe_name(c->pe_layout));
    cJSON_AddStringToObject(o, "tie_embeddings", cfg_tie_name(c->tie));
    cJSON_AddNumberToObject(o, "src_vocab", c->src_vocab);
    cJSON_AddNumberToObject(o, "tgt_vocab", c->tgt_vocab);
    cJSON *p = cJSON_AddObjectToObject(o, "parameters");
    cJSON_AddNumberToObject(p, "embeddings", (double)pc.embed);
    cJSON_AddNumberToObject(p, "encoder", (double)pc.encoder);
    cJSON_AddNumberToObject(p, "decoder", (double)pc.decoder);
    cJSON_AddNumberToObject(p, "generator", (double)pc.generator);
    cJSON_AddNumberToObject(p, "total", (double)pc.total);
    cJSON *fl = cJSON_AddObjectToObject(o, "flops");
    cJSON_AddNumberToObject(fl, "src_len", len);
    cJSON_AddNumberToObject(fl, "tgt_len", len);
    cJSON_AddNumberToObject(fl, "encoder", f.encoder);
    cJSON_AddNumberToObject(fl, "decoder", f.decoder);
    cJSON_AddNumberToObject(fl, "generator", f.generator);
    cJSON_AddNumberToObject(fl, "total", f.total);
    cJSON *meta = cJSON_AddObjectToObject(o, "metadata");
    for (int i = 0; i < m->n_meta; i++)
        cJSON_AddStringToObject(meta, m->meta[i].key, m->meta[i].val);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        puts(s);
    free(s);
    cJSON_Delete(o);
}

static const char *has(const char *dir, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return access(p, R_OK) == 0 ? "yes" : "no";
}

/* info --paths: the data folders in the order they are searched, and the
 * files found. */
static int print_paths(void)
{
    PathsDir d[PATHS_MAX_DIRS];
    int n = paths_data_dirs(d, PATHS_MAX_DIRS), missing = 0;
    const char *env = getenv("STEPFORMER_DATADIR");
    printf("data folders, in the order they are searched (the first that has a file wins):\n");
    if (!env || !env[0])
        printf("  %-20s (not set)\n", "$STEPFORMER_DATADIR");
    for (int i = 0; i < n; i++)
        printf("  %-20s %s  (lessons: %s, models: %s)\n", d[i].what, d[i].dir,
               has(d[i].dir, "lessons"), has(d[i].dir, "assets/models"));
    static const char *const FILES[][2] = {{"lessons", "lessons"},
                                           {"model", "assets/models/en2zh.safetensors"}};
    printf("found:\n");
    for (int i = 0; i < 2; i++) {
        char buf[PATH_MAX];
        paths_data(FILES[i][1], buf, sizeof buf);
        int ok = access(buf, R_OK) == 0;
        missing += !ok;
        printf("  %-20s %s%s\n", FILES[i][0], buf, ok ? "" : "  (missing)");
    }
    char loc[PATH_MAX];
    if (paths_locale(loc, sizeof loc))
        printf("  %-20s %s/zh_CN/LC_MESSAGES/stepformer.mo\n", "Chinese catalog", loc);
    else
        printf("  %-20s (missing: the window stays English; `make` builds it from po/zh_CN.po)\n",
               "Chinese catalog");
    return missing ? 1 : 0;
}

int cmd_info(int argc, char **argv)
{
    const char *C = "info", *model = NULL, *preset = NULL;
    int vocab = 0, len = 32, json = 0, paths = 0;
    const CliOpt opts[] = {
        CLI_FLAG_OPT("json", &json), CLI_FLAG_OPT("paths", &paths),
        CLI_STR_OPT("model", &model), CLI_STR_OPT("preset", &preset),
        CLI_INT_P("vocab", &vocab, 5, TF_MAX_VOCAB), CLI_INT_P("len", &len, 1, TF_MAX_LEN),
    };
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP);
    if (rc)
        return rc < 0 ? 0 : 1;
    if (paths)
        return print_paths();
    if (!!model == !!preset)
        return cli_fail(C, "give exactly one of --model FILE or --preset NAME");
    TfModel m;
    memset(&m, 0, sizeof m);
    TfErr err;
    char label[512];
    if (model) {
        if (cli_load_model(&m, model, C))
            return 1;
        snprintf(label, sizeof label, "%s", model);
    } else {
        /* counting needs no weights: a config and vocabulary sizes suffice */
        if (cfg_preset(&m.cfg, preset, &err))
            return cli_fail(C, "%s", err.msg);
        m.cfg.src_vocab = m.cfg.tgt_vocab = vocab ? vocab : 32;
        if (vocab)
            m.cfg.tie = TF_TIE_ALL;
        if (cfg_validate(&m.cfg, &err))
            return cli_fail(C, "%s", err.msg);
        snprintf(label, sizeof label, "preset %s%s", preset,
                 vocab ? ", one shared vocabulary" : ", vocabulary 32");
    }
    if (json)
        print_json(&m, label, len);
    else
        print_text(&m, label, len);
    model_free(&m);
    return 0;
}
