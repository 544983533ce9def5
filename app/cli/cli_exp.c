/* cli_exp.c - the experiment flags (cli_exp.h) and `stepformer heads`:
 * what each attention head does, in numbers (headstats.h). */
#include "cli_exp.h"
#include "heads_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "decode.h"
#include "finite.h"
#include "headstats.h"

int cli_exp_more(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad)
{
    CliExp *x = ctx;
    const char *v;
    if (cli_flag(argv[*i], "no-scale"))
        x->no_scale = 1;
    else if (cli_flag(argv[*i], "no-pe"))
        x->no_pe = 1;
    else if (cli_flag(argv[*i], "no-causal"))
        x->no_causal = 1;
    else if (cli_flag(argv[*i], "no-residual"))
        x->no_residual = 1;
    else if (cli_opt(argv, argc, i, "no-ffn", &v, cmd, bad)) {
        if (v && x->n_ffn >= TF_EXP_MAX_FFN)
            *bad = cli_fail(cmd, "--no-ffn %s: at most %d feed-forward networks can be switched off", v,
                            TF_EXP_MAX_FFN);
        else if (v)
            x->ffn[x->n_ffn++] = v;
    } else if (cli_opt(argv, argc, i, "ablate", &v, cmd, bad)) {
        if (v && x->n_ablate >= TF_EXP_MAX_ABLATE)
            *bad = cli_fail(cmd, "--ablate %s: at most %d heads can be ablated", v, TF_EXP_MAX_ABLATE);
        else if (v)
            x->ablate[x->n_ablate++] = v;
    } else if (cli_opt(argv, argc, i, "hide-src", &v, cmd, bad)) {
        if (v && x->n_hide >= TF_EXP_MAX_HIDE)
            *bad = cli_fail(cmd, "--hide-src %s: at most %d positions can be hidden", v, TF_EXP_MAX_HIDE);
        else if (v)
            x->hide[x->n_hide++] = v;
    } else
        return 0;
    return 1;
}

int cli_exp_build(const CliExp *x, const TfConfig *cfg, int S, TfExperiment *e, const char *cmd)
{
    TfErr err;
    if (tf_exp_build(x, cfg, S, e, &err))
        return cli_fail(cmd, "%s", err.msg);
    return 0;
}

int cli_exp_any(const CliExp *x)
{
    return x->no_scale || x->no_pe || x->no_causal || x->no_residual || x->n_ablate || x->n_hide ||
           x->n_ffn;
}

/* ---- stepformer heads ---- */

static const char *HEADS_HELP =
    "usage: stepformer heads [--model FILE] (--src TEXT | --src-ids 5,6,7)\n"
    "                        [--tgt TEXT | --tgt-ids 1,8,9] [--json]\n"
    "                        " CLI_EXP_USAGE "\n" HEADS_LAB_USAGE
    "\n"
    "What every attention head does, in numbers, for one sentence: one line\n"
    "per (part enc/dec/cross, layer, head), layers and heads from 0.\n"
    "  entropy       mean over real query rows of -sum_j w ln w (nats)\n"
    "  max_weight    mean over those rows of the largest weight\n"
    "  offset        the most common (argmax_j - i); -1 previous token, 0 diagonal\n"
    "  offset_share  the share of rows where that offset holds\n"
    "  first_share   the mean weight on the first key (\"sink\" heads)\n"
    "  monotonic     cross-attention: share of rows whose argmax is >= the previous row's\n"
    "  label         a plain-language name where one number is clear\n"
    "--tgt TEXT becomes <bos> + its tokens; --tgt-ids are used as given. With\n"
    "no target the decoder input is <bos> + the greedy translation (made with\n"
    "the experiment, when one is given). --json prints one JSON array of the\n"
    "heads, an object per head with the fields above (part, layer, head, rows,\n"
    "keys, ..., label), one object a line.\n"
    "\n" CLI_EXP_HELP "\n" HEADS_LAB_HELP;

typedef struct HeadsArgs {
    CliExp x;
    const char *src, *src_ids, *tgt, *tgt_ids;
} HeadsArgs;

static int heads_more(char **argv, int argc, int *i, void *ctx, const char *cmd, int *bad)
{
    HeadsArgs *h = ctx;
    return cli_exp_more(argv, argc, i, &h->x, cmd, bad);
}

int cli_id_list(const TfModel *m, const char *list, int tgt, int *ids, const char *cmd)
{
    int max = m->cfg.max_len, V = tgt ? m->cfg.tgt_vocab : m->cfg.src_vocab;
    int n = cli_ids(list, ids, max);
    if (n <= 0) {
        cli_fail(cmd, "--%s-ids must be 1..%d comma-separated ids, got '%s'", tgt ? "tgt" : "src", max,
                 list);
        return -1;
    }
    for (int k = 0; k < n; k++)
        if (ids[k] >= V) {
            cli_fail(cmd, "id %d is outside the %s vocabulary of %d", ids[k], tgt ? "target" : "source", V);
            return -1;
        }
    return n;
}

/* text or ids into ids[0..max): the count, or -1 after a message */
static int heads_seq(const TfModel *m, const char *text, const char *idlist, int tgt, int *ids,
                     const char *C)
{
    if (idlist)
        return cli_id_list(m, idlist, tgt, ids, C);
    int off = tgt ? 1 : 0;
    ids[0] = cfg_start_id(&m->cfg);
    int n = cli_encode(m, tgt, text, ids + off, m->cfg.max_len - off, C);
    return n < 0 ? -1 : n + off;
}

/* json: 0 the table's row, 1 the array's first object, 2 one after it */
static void print_head(const TfHeadMetrics *hm, TfAttnKind kind, int l, int h, int json)
{
    const char *label = tf_head_label(hm, kind);
    if (json) {
        printf("%s{\"part\":\"%s\",\"layer\":%d,\"head\":%d,\"rows\":%d,\"keys\":%d,"
               "\"entropy\":%.9g,\"max_weight\":%.9g,\"offset\":%d,\"offset_share\":%.9g,"
               "\"first_share\":%.9g",
               json == 1 ? "[" : ",\n", tf_attn_kind_name(kind), l, h, hm->rows, hm->keys, hm->entropy, hm->max_weight,
               hm->offset, hm->offset_share, hm->first_share);
        if (kind == TF_ATTN_CROSS)
            printf(",\"monotonic\":%.9g", hm->monotonic);
        printf(",\"label\":\"%s\"}", label);
        return;
    }
    printf("%-5s %5d %4d %8.4f %6.3f %6d %6.3f %6.3f ", tf_attn_kind_name(kind), l, h, hm->entropy,
           hm->max_weight, hm->offset, hm->offset_share, hm->first_share);
    if (kind == TF_ATTN_CROSS)
        printf("%6.3f", hm->monotonic);
    else
        printf("%6s", "-");
    printf("  %s\n", label);
}

int cmd_heads(int argc, char **argv)
{
    const char *C = "heads", *model = NULL;
    int lab = heads_lab_mode(argc, argv);
    if (lab)
        return lab == 1 ? heads_importance_main(argc, argv) : heads_qkmap_main(argc, argv);
    static HeadsArgs a;
    memset(&a, 0, sizeof a);
    int json = 0;
    const CliOpt opts[] = {
        CLI_STR_OPT("model", &model), CLI_STR_OPT("src", &a.src), CLI_STR_OPT("src-ids", &a.src_ids),
        CLI_STR_OPT("tgt", &a.tgt), CLI_STR_OPT("tgt-ids", &a.tgt_ids), CLI_FLAG_OPT("json", &json),
    };
    int bad = cli_parse(argc, argv, opts, CLI_N(opts), heads_more, &a, C, HEADS_HELP);
    if (bad)
        return bad < 0 ? 0 : 1;
    if (!a.src == !a.src_ids)
        return cli_fail(C, "give one --src TEXT or --src-ids LIST (see --help)");
    if (a.tgt && a.tgt_ids)
        return cli_fail(C, "give --tgt TEXT or --tgt-ids LIST, not both");
    static TfModel m;
    if (cli_load_model(&m, model, C))
        return 1;
    int src[TF_MAX_LEN], tgt[TF_MAX_LEN], rc = 1;
    int S = heads_seq(&m, a.src, a.src_ids, 0, src, C);
    int T = S < 0 || (!a.tgt && !a.tgt_ids) ? 0 : heads_seq(&m, a.tgt, a.tgt_ids, 1, tgt, C);
    TfExperiment e;
    if (S < 0 || T < 0 || cli_exp_build(&a.x, &m.cfg, S, &e, C)) {
        model_free(&m);
        return 1;
    }
    TfTrace tr;
    TfErr err;
    if (trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err)) {
        model_free(&m);
        return cli_fail(C, "%s", err.msg);
    }
    tr.exp = e;
    int fail;
    if (T > 0) {
        TfBatch b = {1, S, T, src, tgt, &S, &T};
        fail = tf_forward(&m, &tr, &b, 0, &err);
    } else {
        DecodeResult g;
        fail = tf_greedy(&m, &tr, src, S, decode_max_out(&m, &tr, S), 0, &g, &err);
        decode_result_free(&g);
    }
    if (fail || tf_check_finite(&tr, &err)) {
        cli_fail(C, "%s", err.msg);
        goto out;
    }
    if (!json)
        printf("part  layer head  entropy    max offset  share  first   mono  label\n");
    for (int kind = TF_ATTN_ENC; kind <= TF_ATTN_CROSS; kind++) {
        int layers = kind == TF_ATTN_ENC ? m.cfg.n_enc : m.cfg.n_dec;
        for (int l = 0; l < layers; l++)
            for (int h = 0; h < m.cfg.n_heads; h++) {
                TfHeadMetrics hm;
                if (tf_head_metrics(&tr, (TfAttnKind)kind, l, h, 0, &hm, &err)) {
                    cli_fail(C, "%s", err.msg);
                    goto out;
                }
                print_head(&hm, (TfAttnKind)kind, l, h, json ? json++ : 0);
            }
    }
    if (json)
        printf(json > 1 ? "]\n" : "[]\n");
    rc = 0;
out:
    trace_free(&tr);
    model_free(&m);
    return rc;
}

/* --patch-from TEXT --patch P:L:H: the donor pass (source TEXT, the same
 * decoder input tgt of T ids) and its head's output rows copied into
 * *donor (malloc'd), put into e as the patch. 1 after a message. */
int cli_patch_donor(const TfModel *m, TfExperiment *e, const char *spec, const char *text, int S, const int *tgt,
                    int T, float **donor, const char *C)
{
    TfExperiment pe;
    TfErr err;
    memset(&pe, 0, sizeof pe);
    if (tf_exp_add_head(&pe, spec, &m->cfg, &err))
        return cli_fail(C, "--patch: %s", err.msg);
    TfHeadRef h = pe.ablate[0];
    static int ids[TF_MAX_LEN];
    int n = cli_encode(m, 0, text, ids, m->cfg.max_len, C);
    if (n < 0)
        return 1;
    if (h.kind == TF_ATTN_ENC && n != S)
        return cli_fail(C, "--patch-from has %d source tokens and --src %d: an encoder head is patched from a "
                        "sentence of the same length", n, S);
    TfTrace tr;
    if (trace_build(&tr, &m->cfg, 1, n > T ? n : T, TRACE_RECORD, &err))
        return cli_fail(C, "%s", err.msg);
    tr.exp = *e;
    TfBatch b = {1, n, T, ids, tgt, &n, &T};
    int rc = 1;
    if (tf_forward(m, &tr, &b, 0, &err) || tf_check_finite(&tr, &err)) {
        cli_fail(C, "--patch-from: %s", err.msg);
    } else {
        const AttnAct *a = h.kind == TF_ATTN_ENC ? &tr.enc[h.layer].sa
                           : h.kind == TF_ATTN_DEC ? &tr.dec[h.layer].sa : &tr.dec[h.layer].ca;
        int rows = h.kind == TF_ATTN_ENC ? n : T;
        size_t bytes = (size_t)rows * m->cfg.d_model * sizeof(float);
        *donor = malloc(bytes);
        if (!*donor) {
            cli_fail(C, "out of memory");
        } else {
            memcpy(*donor, a->heads, bytes);
            e->patch = h;
            e->patch_heads = *donor;
            e->patch_rows = rows;
            rc = 0;
        }
    }
    trace_free(&tr);
    return rc;
}
