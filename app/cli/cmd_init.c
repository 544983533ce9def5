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
    const char *C = "init", *preset = NULL, *out = NULL, *norm_s = NULL;
    int vocab = 0, sv = 0, tv = 0, seed = 1, max_len = 0;
    int dm = 0, nh = 0, dff = 0, nl = 0;
    const CliOpt opts[] = {
        CLI_STR_OPT("preset", &preset), CLI_STR_OPT("out", &out), CLI_STR_OPT("norm", &norm_s),
        CLI_INT_P("vocab", &vocab, 5, TF_MAX_VOCAB), CLI_INT_P("src-vocab", &sv, 5, TF_MAX_VOCAB),
        CLI_INT_P("tgt-vocab", &tv, 5, TF_MAX_VOCAB), CLI_INT_P("max-len", &max_len, 2, TF_MAX_LEN),
        CLI_INT_P("d-model", &dm, 1, TF_MAX_DMODEL), CLI_INT_P("heads", &nh, 1, TF_MAX_HEADS),
        CLI_INT_P("d-ff", &dff, 1, TF_MAX_DFF), CLI_INT_P("layers", &nl, 1, TF_MAX_LAYERS),
        CLI_INT_M("seed", &seed, 0, 2147483647, "--seed must be a non-negative integer"),
    };
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP);
    if (rc)
        return rc < 0 ? 0 : 1;
    TfNorm norm = TF_NORM_POST;
    if (norm_s && strcmp(norm_s, "pre") == 0)
        norm = TF_NORM_PRE;
    else if (norm_s && strcmp(norm_s, "post") != 0)
        return cli_fail(C, "--norm must be post or pre, not '%s'", norm_s);
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
    cli_resize(&cfg, dm, nh, dff, nl, nl, max_len);
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
    rc = 0;
    if (ckpt_save(&m, out, &err))
        rc = cli_fail(C, "%s", err.msg);
    else
        printf("wrote %s: preset %s, %zu parameters\n", out, preset, m.n_params);
    model_free(&m);
    return rc;
}
