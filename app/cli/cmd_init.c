/* cmd_init.c - `stepformer init`: a randomly initialised model of a preset. */
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"
#include "cli.h"
#include "commands.h"

static const char *HELP =
    "usage: stepformer init --preset NAME [--vocab N | --src-vocab N --tgt-vocab N]\n"
    "                       [--d-model N] [--heads N] [--d-ff N] [--layers N]\n"
    "                       [--norm post|pre] [--max-len N] [--seed N] --out FILE\n"
    "\n"
    "Write a randomly initialised model (Xavier/Glorot uniform, seeded) as a\n"
    "safetensors checkpoint. Presets: classroom (64/4/256/2+2), base\n"
    "(512/8/2048/6+6) and big (1024/16/4096/6+6). Tokens are <pad> <bos> <eos>\n"
    "<unk> t4 t5 ...; --vocab N shares one vocabulary and ties the two\n"
    "embeddings and the pre-softmax projection, as the paper does.\n"
    "--d-model, --heads, --d-ff and --layers (encoder and decoder each)\n"
    "override the preset.\n";

int cmd_init(int argc, char **argv)
{
    const char *C = "init", *preset = NULL, *out = NULL, *v;
    int vocab = 0, sv = 0, tv = 0, seed = 1, max_len = 0, bad = 0;
    int dm = 0, nh = 0, dff = 0, nl = 0;
    TfNorm norm = TF_NORM_POST;
    for (int i = 1; i < argc && !bad; i++) {
        if (cli_flag(argv[i], "help")) {
            fputs(HELP, stdout);
            return 0;
        } else if (cli_opt(argv, argc, &i, "preset", &v, C, &bad)) {
            preset = v;
        } else if (cli_opt(argv, argc, &i, "out", &v, C, &bad)) {
            out = v;
        } else if (cli_opt(argv, argc, &i, "vocab", &v, C, &bad)) {
            if (v && cli_int(v, 5, TF_MAX_VOCAB, &vocab))
                return cli_fail(C, "--vocab must be an integer in 5..%d", TF_MAX_VOCAB);
        } else if (cli_opt(argv, argc, &i, "src-vocab", &v, C, &bad)) {
            if (v && cli_int(v, 5, TF_MAX_VOCAB, &sv))
                return cli_fail(C, "--src-vocab must be an integer in 5..%d", TF_MAX_VOCAB);
        } else if (cli_opt(argv, argc, &i, "tgt-vocab", &v, C, &bad)) {
            if (v && cli_int(v, 5, TF_MAX_VOCAB, &tv))
                return cli_fail(C, "--tgt-vocab must be an integer in 5..%d", TF_MAX_VOCAB);
        } else if (cli_opt(argv, argc, &i, "max-len", &v, C, &bad)) {
            if (v && cli_int(v, 2, TF_MAX_LEN, &max_len))
                return cli_fail(C, "--max-len must be an integer in 2..%d", TF_MAX_LEN);
        } else if (cli_opt(argv, argc, &i, "d-model", &v, C, &bad)) {
            if (v && cli_int(v, 1, TF_MAX_DMODEL, &dm))
                return cli_fail(C, "--d-model must be an integer in 1..%d", TF_MAX_DMODEL);
        } else if (cli_opt(argv, argc, &i, "heads", &v, C, &bad)) {
            if (v && cli_int(v, 1, TF_MAX_HEADS, &nh))
                return cli_fail(C, "--heads must be an integer in 1..%d", TF_MAX_HEADS);
        } else if (cli_opt(argv, argc, &i, "d-ff", &v, C, &bad)) {
            if (v && cli_int(v, 1, TF_MAX_DFF, &dff))
                return cli_fail(C, "--d-ff must be an integer in 1..%d", TF_MAX_DFF);
        } else if (cli_opt(argv, argc, &i, "layers", &v, C, &bad)) {
            if (v && cli_int(v, 1, TF_MAX_LAYERS, &nl))
                return cli_fail(C, "--layers must be an integer in 1..%d", TF_MAX_LAYERS);
        } else if (cli_opt(argv, argc, &i, "seed", &v, C, &bad)) {
            if (v && cli_int(v, 0, 2147483647, &seed))
                return cli_fail(C, "--seed must be a non-negative integer");
        } else if (cli_opt(argv, argc, &i, "norm", &v, C, &bad)) {
            if (v && strcmp(v, "post") == 0)
                norm = TF_NORM_POST;
            else if (v && strcmp(v, "pre") == 0)
                norm = TF_NORM_PRE;
            else if (v)
                return cli_fail(C, "--norm must be post or pre, not '%s'", v);
        } else {
            return cli_fail(C, "unknown argument '%s' (see --help)", argv[i]);
        }
    }
    if (bad)
        return 1;
    if (!preset)
        return cli_fail(C, "--preset is required (classroom, base or big)");
    if (!out)
        return cli_fail(C, "--out FILE is required");
    if (vocab && (sv || tv))
        return cli_fail(C, "use either --vocab or --src-vocab/--tgt-vocab, not both");
    TfConfig cfg;
    TfErr err;
    if (cfg_preset(&cfg, preset, &err))
        return cli_fail(C, "%s", err.msg);
    cfg.norm = norm;
    if (dm)
        cfg.d_model = dm;
    if (nh)
        cfg.n_heads = nh;
    if (dff)
        cfg.d_ff = dff;
    if (nl)
        cfg.n_enc = cfg.n_dec = nl;
    if (max_len)
        cfg.max_len = max_len;
    if (vocab) {
        cfg.src_vocab = cfg.tgt_vocab = vocab;
        cfg.tie = TF_TIE_ALL;
    } else {
        cfg.src_vocab = sv ? sv : 32;
        cfg.tgt_vocab = tv ? tv : 32;
    }
    TfModel m;
    if (model_init_random(&m, &cfg, (uint64_t)seed, &err))
        return cli_fail(C, "%s", err.msg);
    char buf[64];
    snprintf(buf, sizeof buf, "%d", seed);
    model_meta_set(&m, "init_seed", buf);
    model_meta_set(&m, "init_preset", preset);
    model_meta_set(&m, "trained", "false");
    int rc = 0;
    if (ckpt_save(&m, out, &err))
        rc = cli_fail(C, "%s", err.msg);
    else
        printf("wrote %s: preset %s, %zu parameters\n", out, preset, m.n_params);
    model_free(&m);
    return rc;
}
