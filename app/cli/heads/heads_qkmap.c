/* heads_qkmap.c - `stepformer heads --qk-map`: one head's queries and keys
 * in one plane (qkmap.h), for a sentence or over the pairs of a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "cli.h"
#include "decode.h"
#include "heads_cli.h"
#include "heads_pairs.h"
#include "headstats.h"
#include "qkmap.h"

static const char *HELP = "usage:\n" HEADS_LAB_USAGE "\n" HEADS_LAB_HELP;

/* One sentence through the model (T 0: the greedy translation as the
 * decoder input) and its points appended. */
static int add_sentence(const TfModel *m, TfTrace *tr, TfAttnKind kind, int layer, int head, const int *src, int S,
                        const int *tgt, int T, TfQkPoints *p, TfErr *err)
{
    int fail;
    if (T > 0) {
        TfBatch b = {1, S, T, src, tgt, &S, &T};
        fail = tf_forward(m, tr, &b, 0, err);
    } else {
        DecodeResult g;
        fail = tf_greedy(m, tr, src, S, decode_max_out(m, tr, S), 0, &g, err);
        decode_result_free(&g);
    }
    return fail ? -1 : tf_qk_points_add(p, tr, kind, layer, head, 0, err);
}

static int parse_part(const char *s, TfAttnKind *k)
{
    static const char *const NAMES[] = {"enc", "dec", "cross"};
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, NAMES[i]) == 0) {
            *k = (TfAttnKind)i;
            return 0;
        }
    return -1;
}

static cJSON *coords(const double *xy, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *pt = cJSON_CreateArray();
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(xy[2 * i]));
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(xy[2 * i + 1]));
        cJSON_AddItemToArray(a, pt);
    }
    return a;
}

static cJSON *tokens(const Vocab *v, const int *ids, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(vocab_token(v, ids[i])));
    return a;
}

static void print_map(const TfModel *m, TfAttnKind kind, int layer, int head, const TfQkPoints *p, const TfQkMap *q,
                      int json)
{
    const Vocab *qv = kind == TF_ATTN_ENC ? &m->src_vocab : &m->tgt_vocab;
    const Vocab *kv = kind == TF_ATTN_DEC ? &m->tgt_vocab : &m->src_vocab;
    if (!json) {
        printf("%s layer %d head %d: %d queries, %d keys; the two axes explain %.1f%% and %.1f%% of the variance\n",
               tf_attn_kind_name(kind), layer, head, p->q.n, p->k.n, 100 * q->explained[0], 100 * q->explained[1]);
        printf("kind  token\t          x           y\n");
        for (int i = 0; i < p->q.n; i++) {
            printf("q     ");
            cli_put_safe(stdout, vocab_token(qv, p->q.tok[i]));
            printf("\t%11.5f %11.5f\n", q->q[2 * i], q->q[2 * i + 1]);
        }
        for (int j = 0; j < p->k.n; j++) {
            printf("k     ");
            cli_put_safe(stdout, vocab_token(kv, p->k.tok[j]));
            printf("\t%11.5f %11.5f\n", q->k[2 * j], q->k[2 * j + 1]);
        }
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "part", tf_attn_kind_name(kind));
    cJSON_AddNumberToObject(o, "layer", layer);
    cJSON_AddNumberToObject(o, "head", head);
    cJSON_AddItemToObject(o, "queries", coords(q->q, p->q.n));
    cJSON_AddItemToObject(o, "keys", coords(q->k, p->k.n));
    cJSON_AddItemToObject(o, "query_tokens", tokens(qv, p->q.tok, p->q.n));
    cJSON_AddItemToObject(o, "key_tokens", tokens(kv, p->k.tok, p->k.n));
    cJSON *ex = cJSON_AddArrayToObject(o, "explained");
    cJSON_AddItemToArray(ex, cJSON_CreateNumber(q->explained[0]));
    cJSON_AddItemToArray(ex, cJSON_CreateNumber(q->explained[1]));
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        puts(s);
    free(s);
    cJSON_Delete(o);
}

/* text or ids into ids (tgt: <bos> first for text): the count, or -1 */
static int seq(const TfModel *m, const char *text, const char *idlist, int tgt, int *ids, const char *C)
{
    if (idlist) { /* as given, checked against the vocabulary */
        int n = cli_ids(idlist, ids, m->cfg.max_len), V = tgt ? m->cfg.tgt_vocab : m->cfg.src_vocab;
        int bad = n <= 0 ? cli_fail(C, "--%s-ids must be 1..%d comma-separated ids, got '%s'", tgt ? "tgt" : "src",
                                    m->cfg.max_len, idlist)
                         : 0;
        for (int k = 0; k < n && !bad; k++)
            if (ids[k] >= V)
                bad = cli_fail(C, "id %d is outside the %s vocabulary of %d", ids[k], tgt ? "target" : "source", V);
        return bad ? -1 : n;
    }
    int off = tgt ? 1 : 0;
    ids[0] = cfg_start_id(&m->cfg);
    int n = cli_encode(m, tgt, text, ids + off, m->cfg.max_len - off, C);
    return n < 0 ? -1 : n + off;
}

int heads_qkmap_main(int argc, char **argv)
{
    const char *C = "heads", *model = NULL, *part = NULL, *src = NULL, *src_ids = NULL, *tgt = NULL;
    const char *tgt_ids = NULL, *data = NULL, *task = NULL;
    int json = 0, flag = 0, layer = -1, head = -1, pairs = 0;
    const CliOpt opts[] = {
        CLI_FLAG_OPT("qk-map", &flag), CLI_STR_OPT("model", &model), CLI_STR_OPT("part", &part),
        CLI_INT_OPT("layer", &layer, 0, TF_MAX_LAYERS - 1), CLI_INT_OPT("head", &head, 0, TF_MAX_HEADS - 1),
        CLI_STR_OPT("src", &src), CLI_STR_OPT("src-ids", &src_ids), CLI_STR_OPT("tgt", &tgt),
        CLI_STR_OPT("tgt-ids", &tgt_ids), CLI_STR_OPT("data", &data), CLI_STR_OPT("task", &task),
        CLI_FLAG_OPT("json", &json),
        CLI_INT_M("pairs", &pairs, 1, 100000000, "--pairs must be a positive integer, not '%s'"),
    };
    int bad = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP);
    if (bad)
        return bad < 0 ? 0 : 1;
    TfAttnKind kind;
    if (parse_part(part, &kind))
        return cli_fail(C, "--qk-map needs --part enc, dec or cross%s%s%s", part ? " (not '" : "",
                        part ? part : "", part ? "')" : "");
    if (layer < 0 || head < 0)
        return cli_fail(C, "--qk-map needs --layer L and --head H (from 0)");
    if ((src != NULL) + (src_ids != NULL) + (data != NULL) + (task != NULL) != 1)
        return cli_fail(C, "give one of --src TEXT, --src-ids LIST, --data FILE.tsv or --task NAME");
    if (tgt && tgt_ids)
        return cli_fail(C, "give --tgt TEXT or --tgt-ids LIST, not both");
    if ((data || task) && (tgt || tgt_ids))
        return cli_fail(C, "--data and --task take their targets from the pairs; leave out --tgt");
    static TfModel m;
    if (cli_load_model(&m, model, C))
        return 1;
    int layers = kind == TF_ATTN_ENC ? m.cfg.n_enc : m.cfg.n_dec, rc = 1;
    if (layer >= layers || head >= m.cfg.n_heads) {
        cli_fail(C, "%s layer %d head %d is not in this model (layers 0..%d, heads 0..%d)", part, layer, head,
                 layers - 1, m.cfg.n_heads - 1);
        model_free(&m);
        return 1;
    }
    TfTrace tr;
    TfErr err;
    TfQkPoints pts;
    HeadsPairs hp;
    memset(&pts, 0, sizeof pts);
    memset(&hp, 0, sizeof hp);
    if (trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err)) {
        model_free(&m);
        return cli_fail(C, "%s", err.msg);
    }
    static int s_ids[TF_MAX_LEN], t_ids[TF_MAX_LEN];
    if (data || task) {
        if (heads_pairs_load(&m, task, data, pairs, &hp, &err)) {
            cli_fail(C, "%s", err.msg);
            goto out;
        }
        if (hp.n_bad)
            cli_warn(C, "%s: skipped %d line%s", hp.name, hp.n_bad, hp.n_bad == 1 ? "" : "s");
        for (int i = 0; i < hp.n; i++) {
            int T = hp.pairs[i].R + 1;
            t_ids[0] = cfg_start_id(&m.cfg);
            memcpy(t_ids + 1, hp.pairs[i].ref, (size_t)hp.pairs[i].R * sizeof(int));
            if (add_sentence(&m, &tr, kind, layer, head, hp.pairs[i].src, hp.pairs[i].S, t_ids, T, &pts, &err)) {
                cli_fail(C, "%s", err.msg);
                goto out;
            }
        }
    } else {
        int S = seq(&m, src, src_ids, 0, s_ids, C);
        int T = S < 0 || (!tgt && !tgt_ids) ? 0 : seq(&m, tgt, tgt_ids, 1, t_ids, C);
        if (S < 0 || T < 0)
            goto out;
        if (add_sentence(&m, &tr, kind, layer, head, s_ids, S, t_ids, T, &pts, &err)) {
            cli_fail(C, "%s", err.msg);
            goto out;
        }
    }
    TfQkMap map;
    int dk = m.cfg.d_model / m.cfg.n_heads;
    if (tf_qkmap(pts.q.x, pts.q.n, dk, pts.k.x, pts.k.n, dk, dk, &map, &err)) {
        cli_fail(C, "%s", err.msg);
        goto out;
    }
    print_map(&m, kind, layer, head, &pts, &map, json);
    tf_qkmap_free(&map);
    rc = 0;
out:
    heads_pairs_free(&hp);
    tf_qk_points_free(&pts);
    trace_free(&tr);
    model_free(&m);
    return rc;
}
