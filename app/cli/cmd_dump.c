/* cmd_dump.c - `stepformer dump`: one stage of the forward pass as a matrix,
 * in CSV or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_exp.h"
#include "commands.h"
#include "decode.h"
#include "derived.h"
#include "export.h"
#include "finite.h"
#include "stage.h"

#define MAX_SENT 16

static const char *HELP =
    "usage: stepformer dump [--model FILE] (--src TEXT | --src-ids 5,6,7)...\n"
    "                       [(--tgt TEXT | --tgt-ids 1,8,9)...] [--batch-index B]\n"
    "                       --stage NAME [--layer L] [--head H] [--format csv|json]\n"
    "                       " CLI_EXP_USAGE "\n"
    "                       [--patch-from TEXT --patch enc|dec|cross:L:H]\n"
    "\n"
    "Run the model and print one stage as a matrix with row and column labels.\n"
    "Repeat --src (and --tgt) to make a padded batch; --batch-index picks the\n"
    "sentence to print. --tgt TEXT becomes <bos> + its tokens; --src-ids and\n"
    "--tgt-ids are used exactly as given (include <bos>=1 yourself). With no\n"
    "target the decoder input is <bos> + the greedy translation.\n"
    "Per-head stages take --head (scores and weights default to head 0; q, k,\n"
    "v and heads show all heads unless --head is given). Masked entries are\n"
    "printed as -inf (the string \"-inf\" in JSON). With an experiment the\n"
    "greedy translation is made with it too, and every stage shows it (mask:\n"
    "the mask applied; scores: what the softmax was fed).\n"
    "--patch-from TEXT --patch P:L:H (activation patching, one sentence): head H\n"
    "of attention P in layer L takes its output (before W_O) from a pass over\n"
    "the source TEXT with the same decoder input; an encoder head needs a\n"
    "source of the same length, and with no target the greedy translation is\n"
    "made under its patch (a decoder-side head's donor reads that translation,\n"
    "made without the patch).\n"
    "\n" CLI_EXP_HELP "\nStages:\n";

typedef struct Seq {
    int ids[TF_MAX_LEN];
    int n;
} Seq;

static void print_stages(void)
{
    fputs(HELP, stdout);
    for (int i = 0; i < ST_COUNT; i++) {
        const StageInfo *si = stage_info(i);
        printf("  %-20s%s%s\n", si->name, (si->flags & SF_LAYER) ? " --layer" : "",
               (si->flags & SF_HEAD) ? " --head" : (si->flags & SF_HEAD_OPT) ? " [--head]" : "");
    }
    printf("Computed from the pass on request (the heads lab):\n"
           "  %-20s --layer   softmax(W_gen n(y_L) + b): the output if the decoder stopped\n"
           "                               after layer L (n: the final norm of a pre-LN model)\n"
           "  %-20s --layer   R_L = A^_L R_(L-1), A^ = (mean of the heads' weights + I) / 2\n"
           "  %-20s --layer   (mean of layer L's cross weights) . R of the last encoder layer\n",
           tf_derived_name(DS_DEC_LENS), tf_derived_name(DS_ENC_ROLLOUT), tf_derived_name(DS_CROSS_ROLLOUT));
}

/* --src / --tgt TEXT or ids into seq; tgt TEXT gets <bos> in front */
static int add_seq(Seq *seqs, int *n, const char *text, const char *ids,
                   const TfModel *m, int tgt, const char *C)
{
    if (*n >= MAX_SENT)
        return cli_fail(C, "at most %d sentences in a batch", MAX_SENT);
    Seq *s = &seqs[(*n)++];
    int max = m->cfg.max_len;
    if (ids) {
        s->n = cli_id_list(m, ids, tgt, s->ids, C);
        return s->n < 0;
    }
    int off = tgt ? 1 : 0;
    if (tgt)
        s->ids[0] = cfg_start_id(&m->cfg);
    int k = cli_encode(m, tgt, text, s->ids + off, max - off, C);
    if (k < 0)
        return 1;
    s->n = k + off;
    return 0;
}

/* With no target: <bos> + the greedy translation of each source. */
static int greedy_targets(const TfModel *m, Seq *src, Seq *tgt, int n, const TfExperiment *e,
                          const char *C)
{
    TfTrace tr;
    TfErr err;
    if (trace_build(&tr, &m->cfg, 1, 8, 0, &err))
        return cli_fail(C, "%s", err.msg);
    tr.exp = *e;
    /* as long as the window's and translate's greedy output, and no longer
     * than the model's positions with the <bos> in front */
    int cap = m->cfg.max_len < TF_MAX_LEN ? m->cfg.max_len : TF_MAX_LEN;
    for (int i = 0; i < n; i++) {
        DecodeResult r;
        int max_out = decode_max_out(m, &tr, src[i].n);
        if (tf_greedy(m, &tr, src[i].ids, src[i].n, max_out, 0, &r, &err) ||
            tf_check_finite(&tr, &err)) {
            if (r.ids)
                decode_result_free(&r);
            trace_free(&tr);
            return cli_fail(C, "%s", err.msg);
        }
        tgt[i].ids[0] = cfg_start_id(&m->cfg);
        tgt[i].n = 1;
        for (int k = 0; k < r.n && r.ids[k] != cfg_eos_id(&m->cfg) && tgt[i].n < cap; k++)
            tgt[i].ids[tgt[i].n++] = r.ids[k];
        decode_result_free(&r);
    }
    trace_free(&tr);
    return 0;
}

static int push_arg(const char *args[][2], int *n, const char *text,
                    const char *ids, const char *C)
{
    if (*n >= MAX_SENT)
        return cli_fail(C, "at most %d sentences in a batch", MAX_SENT);
    args[*n][0] = text;
    args[*n][1] = ids;
    (*n)++;
    return 0;
}

/* Which sentence option argv[*i] is: bit 1 target, bit 0 ids; -1 none. */
static int seq_opt(char **argv, int argc, int *i, const char **v, int *bad)
{
    static const char *const NAMES[] = {"src", "src-ids", "tgt", "tgt-ids"};
    for (int k = 0; k < 4; k++)
        if (cli_opt(argv, argc, i, NAMES[k], v, "dump", bad))
            return k;
    return -1;
}

/* JSON text made terminal-safe by valid JSON escapes: cJSON escapes C0
 * already; DEL, C1 and the bidi overrides become \uXXXX (they occur only
 * inside strings). */
static void put_json_safe(FILE *f, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned cp = 0;
        int len = 0;
        if (s[i] == 0x7f)
            cp = 0x7f, len = 1;
        else if (i + 1 < n && s[i] == 0xc2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
            cp = s[i + 1], len = 2;
        else if (i + 2 < n && s[i] == 0xe2 && s[i + 1] == 0x80 && s[i + 2] >= 0xaa && s[i + 2] <= 0xae)
            cp = 0x2000u + (s[i + 2] - 0x80u), len = 3;
        else if (i + 2 < n && s[i] == 0xe2 && s[i + 1] == 0x81 && s[i + 2] >= 0xa6 && s[i + 2] <= 0xa9)
            cp = 0x2040u + (s[i + 2] - 0x80u), len = 3;
        if (len) {
            fprintf(f, "\\u%04x", cp);
            i += (size_t)len - 1;
        } else {
            fputc(s[i], f);
        }
    }
}

/* The view as CSV or JSON on stdout, tokens' control characters escaped. */
static int print_view(const TfTrace *tr, const TfModel *m, const TfView *view, int json, const char *C)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    if (!mf)
        return cli_fail(C, "out of memory");
    if (json)
        export_json(mf, tr, m, view);
    else
        export_csv(mf, tr, m, view);
    if (fclose(mf) != 0 || !buf) {
        free(buf);
        return cli_fail(C, "out of memory");
    }
    if (json)
        put_json_safe(stdout, (const unsigned char *)buf, len);
    else
        cli_put_safe_n(stdout, buf, len, 1);
    free(buf);
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    const char *C = "dump", *model = NULL, *stage = NULL, *v;
    int layer = 0, head = -2, bidx = 0, json = 0, bad = 0, ns = 0, nt = 0, k;
    const char *patch_from = NULL, *patch = NULL;
    static Seq src[MAX_SENT], tgt[MAX_SENT];
    static CliExp x;
    memset(&x, 0, sizeof x);
    const char *src_arg[MAX_SENT][2], *tgt_arg[MAX_SENT][2];
    for (int i = 1; i < argc && !bad; i++) {
        if (cli_flag(argv[i], "help")) {
            print_stages();
            return 0;
        } else if (cli_opt(argv, argc, &i, "model", &v, C, &bad)) {
            model = v;
        } else if (cli_opt(argv, argc, &i, "stage", &v, C, &bad)) {
            stage = v;
        } else if (cli_opt(argv, argc, &i, "patch-from", &v, C, &bad)) {
            patch_from = v;
        } else if (cli_opt(argv, argc, &i, "patch", &v, C, &bad)) {
            patch = v;
        } else if ((k = seq_opt(argv, argc, &i, &v, &bad)) >= 0) {
            /* --src / --src-ids / --tgt / --tgt-ids: a sentence as text or ids */
            if (push_arg(k & 2 ? tgt_arg : src_arg, k & 2 ? &nt : &ns, k & 1 ? NULL : v, k & 1 ? v : NULL, C))
                return 1;
        } else if (cli_opt(argv, argc, &i, "layer", &v, C, &bad)) {
            if (v && cli_int(v, 0, TF_MAX_LAYERS - 1, &layer))
                return cli_fail(C, "--layer must be a layer index, not '%s'", v);
        } else if (cli_opt(argv, argc, &i, "head", &v, C, &bad)) {
            if (v && cli_int(v, -1, TF_MAX_HEADS - 1, &head))
                return cli_fail(C, "--head must be a head index (or -1 for all), not '%s'", v);
        } else if (cli_opt(argv, argc, &i, "batch-index", &v, C, &bad)) {
            if (v && cli_int(v, 0, MAX_SENT - 1, &bidx))
                return cli_fail(C, "--batch-index must be in 0..%d", MAX_SENT - 1);
        } else if (cli_opt(argv, argc, &i, "format", &v, C, &bad)) {
            if (v && strcmp(v, "json") == 0)
                json = 1;
            else if (v && strcmp(v, "csv") != 0)
                return cli_fail(C, "--format must be csv or json, not '%s'", v);
        } else if (!cli_exp_more(argv, argc, &i, &x, C, &bad)) {
            return cli_fail(C, "unknown argument '%s' (see --help)", argv[i]);
        }
    }
    if (bad)
        return 1;
    if (!stage)
        return cli_fail(C, "--stage NAME is required (see --help for the list)");
    int did = tf_derived_find(stage);
    int sid = did >= 0 ? (did == DS_ENC_ROLLOUT ? ST_ENC_SELF_WEIGHTS : ST_OUT_PROBS) : stage_find(stage);
    if (sid < 0)
        return cli_fail(C, "unknown stage '%s' (see --help for the list)", stage);
    if (ns == 0)
        return cli_fail(C, "give at least one --src TEXT or --src-ids LIST");
    if (nt && nt != ns)
        return cli_fail(C, "%d sources but %d targets: give one target per source, or none", ns, nt);
    if (!patch != !patch_from)
        return cli_fail(C, "--patch-from TEXT and --patch P:L:H go together");
    if (patch && ns != 1)
        return cli_fail(C, "--patch works on one sentence (one --src)");
    if (bidx >= ns)
        return cli_fail(C, "--batch-index %d but the batch has %d sentence%s", bidx, ns, ns == 1 ? "" : "s");
    if (head == -2)
        head = did < 0 && (stage_info(sid)->flags & SF_HEAD) ? 0 : -1;
    TfModel m;
    if (cli_load_model(&m, model, C))
        return 1;
    int rc = 1, n0 = 0, n1 = 0;
    float *derived = NULL, *donor = NULL; /* the derived stage's matrix; the patch's donor rows */
    for (int i = 0; i < ns; i++)
        if (add_seq(src, &n0, src_arg[i][0], src_arg[i][1], &m, 0, C))
            goto out;
    for (int i = 0; i < nt; i++)
        if (add_seq(tgt, &n1, tgt_arg[i][0], tgt_arg[i][1], &m, 1, C))
            goto out;
    int S = 1, T = 1;
    for (int i = 0; i < ns; i++)
        if (src[i].n > S) S = src[i].n;
    TfExperiment e;
    if (cli_exp_build(&x, &m.cfg, S, &e, C))
        goto out;
    /* an encoder head's donor needs no decoder input: the greedy
     * translation is then made with the patch too, as with any experiment
     * (a decoder-side head's donor reads the target: the target is made first) */
    int start = cfg_start_id(&m.cfg), enc_patch = patch && !strncmp(patch, "enc:", 4);
    if (enc_patch && cli_patch_donor(&m, &e, patch, patch_from, S, &start, 1, &donor, C))
        goto out;
    if (!nt && greedy_targets(&m, src, tgt, ns, &e, C))
        goto out;
    for (int i = 0; i < ns; i++)
        if (tgt[i].n > T) T = tgt[i].n;
    int *sb = malloc((size_t)ns * S * sizeof *sb), *tb = malloc((size_t)ns * T * sizeof *tb);
    int sl[MAX_SENT], tl[MAX_SENT];
    if (!sb || !tb) {
        free(sb);
        free(tb);
        cli_fail(C, "out of memory for a batch of %d sentences", ns);
        goto out;
    }
    /* padded with the model's pad id (Marian: pad_token_id, not 0 = </s>):
     * the padded rows' queries then are the ones the model's own code makes;
     * the mask itself comes from the lengths */
    for (size_t j = 0; j < (size_t)ns * S; j++)
        sb[j] = cfg_pad_id(&m.cfg);
    for (size_t j = 0; j < (size_t)ns * T; j++)
        tb[j] = cfg_pad_id(&m.cfg);
    for (int i = 0; i < ns; i++) {
        memcpy(sb + (size_t)i * S, src[i].ids, (size_t)src[i].n * sizeof *sb);
        memcpy(tb + (size_t)i * T, tgt[i].ids, (size_t)tgt[i].n * sizeof *tb);
        sl[i] = src[i].n;
        tl[i] = tgt[i].n;
    }
    TfTrace tr;
    TfErr err;
    TfBatch batch = {ns, S, T, sb, tb, sl, tl};
    TfView view;
    if (patch && !enc_patch && cli_patch_donor(&m, &e, patch, patch_from, S, tgt[0].ids, T, &donor, C)) {
        free(sb);
        free(tb);
        goto out;
    }
    int built = trace_build(&tr, &m.cfg, ns, S > T ? S : T, TRACE_RECORD, &err) == 0;
    if (built)
        tr.exp = e;
    if (!built || tf_forward(&m, &tr, &batch, 0, &err) || tf_check_finite(&tr, &err) ||
        (did >= 0 ? tf_derived_view(&m, &tr, (DerivedId)did, layer, bidx, &derived, &view, &err)
                  : tf_view(&tr, sid, layer, head, bidx, &view, &err))) {
        cli_fail(C, "%s", err.msg);
    } else {
        rc = print_view(&tr, &m, &view, json, C);
    }
    free(derived);
    trace_free(&tr);
    free(sb);
    free(tb);
out:
    free(donor);
    model_free(&m);
    return rc;
}
