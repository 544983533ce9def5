/* cli_exp.h - the experiment flags that dump, translate, shot, heads and
 * the window share: --no-scale, --no-pe, --no-causal, --no-residual,
 * --ablate enc|dec|cross:L:H, --hide-src I and --no-ffn enc|dec:L (the
 * last three repeatable; from 0). They are
 * collected while the command line is read and checked against the model
 * once it is loaded. The `heads` command (cmd_heads, commands.h) lives in cli_exp.c too. */
#ifndef APP_CLI_EXP_H
#define APP_CLI_EXP_H

#include "experiment.h"
#include "model.h"

/* the flags as they were given (the strings are argv's) */
typedef TfExpSpec CliExp;

#define CLI_EXP_USAGE                                                                       \
    "[--no-scale] [--no-pe] [--no-causal] [--no-residual] [--ablate P:L:H]... [--hide-src I]... " \
    "[--no-ffn P:L]..."
#define CLI_EXP_HELP                                                                   \
    "Experiments (flags combine; layers, heads and positions from 0):\n"               \
    "  --no-scale         scores = Q K^T, without the 1/sqrt(d_k)\n"                   \
    "  --no-pe            no positional encoding\n"                                    \
    "  --no-causal        decoder self-attention may look ahead\n"                     \
    "  --ablate P:L:H     zero head H of layer L (P = enc, dec or cross); repeatable\n" \
    "  --hide-src I       mask source position I as a key; repeatable\n"             \
    "  --no-residual      every sub-layer without its residual: LN(Sublayer(x))\n"   \
    "  --no-ffn P:L       zero the feed-forward output of layer L (P = enc or dec)\n"

/* Is argv[*i] an experiment flag? 1 when it is (taken, or a message printed
 * and *bad set), 0 when not. Has the CliMore shape (ctx is a CliExp). */
int cli_exp_more(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad);

/* The flags as an experiment for cfg (out-of-range values: one line naming
 * them). S > 0 also checks hidden positions against a source of S tokens.
 * Returns 0, or 1 after printing the message. */
int cli_exp_build(const CliExp *x, const TfConfig *cfg, int S, TfExperiment *e, const char *cmd);
/* Was any experiment flag given? */
int cli_exp_any(const CliExp *x);


/* Activation patching (--patch-from TEXT --patch P:L:H): the donor pass
 * over the source TEXT with the decoder input tgt (T ids), and its head's
 * output rows (before W_O) copied into *donor (malloc'd; the caller frees
 * it) and put into e as the patch. An encoder head needs a TEXT of S
 * tokens. 0, or 1 after a one-line message. */
int cli_patch_donor(const TfModel *m, TfExperiment *e, const char *spec, const char *text, int S, const int *tgt,
                    int T, float **donor, const char *cmd);

/* --src-ids / --tgt-ids LIST (tgt set) checked against m: the count, or
 * -1 after a one-line message. */
int cli_id_list(const TfModel *m, const char *list, int tgt, int *ids, const char *cmd);

#endif
