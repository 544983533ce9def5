/* evaluate.c - how good is a model on sentences it never trained on?
 * (tf_evaluate, trainer_eval; see train.h)
 *
 * Two kinds of figures over the held-out pairs of a data set:
 *   teacher forced  the decoder reads <bos> + the true target and predicts
 *                   every next token at once: the loss (with and without
 *                   label smoothing) and the token accuracy, <eos> included;
 *   decoded         the model translates on its own (greedy, or beam
 *                   search): exact match with the reference, per source
 *                   length too, and corpus BLEU-4, the paper's metric.
 * Batches come from the one padded-batch builder (batch.h) and translations
 * from tf_translate. `stepformer eval` decodes every pair; the window's
 * quick check (train_worker) decodes only the first EvalOpts.decode_pairs,
 * each stopped at its reference's length + 1.
 * The held-out pairs are split in two halves evaluated on two threads; the
 * sums are combined in a fixed order, so the figures never depend on it. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bleu.h"
#include "parallel.h"
#include "batch.h"
#include "decode.h"
#include "train.h"

#define EVAL_BATCH 32

typedef struct EvalPart {
    const TfModel *m;
    const Dataset *d;
    const EvalOpts *o;
    const int *src_map, *tgt_map;
    int from, to;      /* held-out pair indices [from, to) */
    int dfrom, dto;    /* ... of which decoded */
    int base;          /* index of the first evaluated pair */
    int **hyp, *hyp_len, **ref, *ref_len; /* per evaluated pair */
    int cap_T;
    double loss, nll;
    long long tokens, correct;
    int exact, len_n[EVAL_MAX_LEN + 1], len_exact[EVAL_MAX_LEN + 1];
    int rc;
    int n_parts, n_total; /* for the progress reports of part 0 */
    TfErr err;
} EvalPart;

static int eval_stopped(const EvalPart *p)
{
    return p->o->stop && *p->o->stop;
}

/* Part 0 reports for all (the parts advance at about the same pace). */
static void eval_progress(const EvalPart *p, int done)
{
    if (p->o->progress && p->from == p->base && p->n_total > 0) {
        long long all = (long long)done * p->n_parts;
        p->o->progress(all < p->n_total ? (int)all : p->n_total, p->n_total, p->o->user);
    }
}

void eval_opts_default(EvalOpts *o)
{
    memset(o, 0, sizeof *o);
    o->beam = 1;
    o->alpha = 0.6f;
    o->label_smoothing = 0.1f;
    o->threads = TRAIN_SHARDS;
}

static int map_id(const int *map, int id)
{
    return map[id] < 0 ? TOK_UNK : map[id];
}

/* Teacher-forced loss and accuracy over pairs [a, b) in one padded batch. */
static int tf_batch(EvalPart *p, TfTrace *tr, int a, int b, PadBatch *pb)
{
    int V = p->m->cfg.tgt_vocab;
    batch_fill(pb, p->d, NULL, a, b - a, p->src_map, p->tgt_map);
    TfBatch in = batch_input(pb);
    if (tf_forward(p->m, tr, &in, 0, &p->err))
        return -1;
    int n = 0, correct = 0, N = pb->B * pb->T;
    p->loss += loss_forward(NULL, tr->logits, tr->probs, pb->tgt_out, N, V,
                            p->o->label_smoothing, &n, &correct);
    p->nll += loss_forward(NULL, tr->logits, tr->probs, pb->tgt_out, N, V, 0.0f, NULL, NULL);
    p->tokens += n;
    p->correct += correct;
    return 0;
}

/* Decode pair i and compare with its reference; src: room for its ids. */
static int decode_one(EvalPart *p, TfTrace *tr, int i, int *src)
{
    const Pair *pr = &p->d->pairs[i];
    const int32_t *s = p->d->ids + pr->src_off;
    for (int k = 0; k < pr->src_len; k++)
        src[k] = map_id(p->src_map, s[k]);
    int S = pr->src_len, j = i - p->base;
    DecodeOpts o = {.beam = p->o->beam, .alpha = p->o->alpha,
                    .max_out = p->o->stop_at_ref ? p->ref_len[j] + 1 : 0};
    DecodeResult r;
    if (tf_translate(p->m, tr, src, S, &o, &r, &p->err))
        return -1;
    int len = 0;
    while (len < r.n && r.ids[len] != TOK_EOS)
        len++;
    int finished = len < r.n;
    p->hyp[j] = r.ids; /* (max_out >= len) */
    p->hyp_len[j] = len;
    r.ids = NULL;
    decode_result_free(&r);
    int same = finished && len == p->ref_len[j] &&
               memcmp(p->hyp[j], p->ref[j], (size_t)len * sizeof(int)) == 0;
    p->exact += same;
    int L = S < EVAL_MAX_LEN ? S : EVAL_MAX_LEN;
    p->len_n[L]++;
    p->len_exact[L] += same;
    return 0;
}

static void *eval_part(void *arg)
{
    EvalPart *p = arg;
    TfTrace tf, dec;
    PadBatch pb;
    memset(&tf, 0, sizeof tf);
    memset(&dec, 0, sizeof dec);
    memset(&pb, 0, sizeof pb);
    int K = p->o->beam > 1 ? p->o->beam : 1, nb = p->o->batch > 0 ? p->o->batch : EVAL_BATCH;
    p->rc = -1;
    if (p->from >= p->to) {
        p->rc = 0;
        goto done;
    }
    if (batch_build(&pb, nb, p->cap_T, &p->err) ||
        trace_build(&tf, &p->m->cfg, nb, p->cap_T, 0, &p->err) ||
        (p->dfrom < p->dto && trace_build(&dec, &p->m->cfg, K, p->m->cfg.max_len, 0, &p->err)))
        goto done;
    /* progress counts the decoded pairs (the slow part), or the
     * teacher-forced ones when nothing is decoded */
    int decoding = p->dfrom < p->dto;
    for (int a = p->from; a < p->to; a += nb) {
        int b = a + nb < p->to ? a + nb : p->to;
        if (eval_stopped(p) || tf_batch(p, &tf, a, b, &pb))
            goto done;
        if (!decoding)
            eval_progress(p, b - p->from);
    }
    for (int i = p->dfrom; i < p->dto; i++) {
        if (eval_stopped(p) || decode_one(p, &dec, i, pb.src))
            goto done;
        if ((i - p->dfrom) % 8 == 7 || i + 1 == p->dto)
            eval_progress(p, i + 1 - p->dfrom);
    }
    p->rc = 0;
done:
    trace_free(&tf);
    trace_free(&dec);
    batch_free(&pb);
    return NULL;
}

/* References mapped into the model's target ids (unknown: -1, which the
 * model can never produce). */
static int make_refs(EvalPart *p, int n, const int *tgt_map, TfErr *err)
{
    for (int j = 0; j < n; j++) {
        const Pair *pr = &p->d->pairs[p->base + j];
        p->ref[j] = malloc((size_t)(pr->tgt_len > 0 ? pr->tgt_len : 1) * sizeof(int));
        if (!p->ref[j])
            return tf_fail(err, "out of memory");
        for (int k = 0; k < pr->tgt_len; k++)
            p->ref[j][k] = tgt_map[p->d->ids[pr->tgt_off + k]];
        p->ref_len[j] = pr->tgt_len;
    }
    return 0;
}

static void combine(EvalStats *s, const EvalPart *part, int n_parts, int n, int n_dec)
{
    double loss = 0, nll = 0;
    long long tokens = 0, correct = 0;
    int exact = 0;
    for (int k = 0; k < n_parts; k++) {
        const EvalPart *p = &part[k];
        loss += p->loss;
        nll += p->nll;
        tokens += p->tokens;
        correct += p->correct;
        exact += p->exact;
        for (int L = 0; L <= EVAL_MAX_LEN; L++) {
            s->len_n[L] += p->len_n[L];
            s->len_exact[L] += p->len_exact[L];
        }
    }
    s->n = n;
    s->n_decoded = n_dec;
    s->loss = tokens ? loss / tokens : 0;
    s->nll = tokens ? nll / tokens : 0;
    s->token_acc = tokens ? (double)correct / tokens : 0;
    s->exact = n_dec ? (double)exact / n_dec : 0;
    const EvalPart *p = &part[0];
    s->bleu = bleu_corpus((const int *const *)p->hyp, p->hyp_len,
                          (const int *const *)p->ref, p->ref_len, n_dec);
}

static int check_lengths(const TfModel *m, const Dataset *d, int base, int n,
                         int *cap_T, TfErr *err)
{
    int need = 1;
    for (int i = base; i < base + n; i++) {
        const Pair *p = &d->pairs[i];
        int l = p->src_len > p->tgt_len + 1 ? p->src_len : p->tgt_len + 1;
        need = l > need ? l : need;
    }
    if (need > m->cfg.max_len)
        return tf_fail(err, "%s: held-out pairs of up to %d tokens (with <bos>) "
                       "exceed the model's max_len %d", d->name, need, m->cfg.max_len);
    *cap_T = need;
    return 0;
}

int tf_evaluate(const TfModel *m, const Dataset *d, const EvalOpts *o,
                EvalStats *s, TfErr *err)
{
    memset(s, 0, sizeof *s);
    int base = d->n_train, n = d->n_pairs - d->n_train;
    if (o->max_pairs > 0 && n > o->max_pairs)
        n = o->max_pairs;
    if (n <= 0)
        return tf_fail(err, "%s: no held-out pairs to evaluate", d->name);
    if (o->beam < 1 || o->beam > 64)
        return tf_fail(err, "beam size %d is out of range [1, 64]", o->beam);
    int cap_T = 1, missing = 0, rc = -1;
    if (check_lengths(m, d, base, n, &cap_T, err))
        return -1;
    EvalPart part[TRAIN_SHARDS];
    memset(part, 0, sizeof part);
    int *src_map = vocab_id_map(&d->src, &m->src_vocab, &missing);
    int *tgt_map = vocab_id_map(&d->tgt, &m->tgt_vocab, NULL);
    int **hyp = calloc((size_t)n, sizeof *hyp), **ref = calloc((size_t)n, sizeof *ref);
    int *hyp_len = calloc((size_t)n, sizeof(int)), *ref_len = calloc((size_t)n, sizeof(int));
    if (!src_map || !tgt_map || !hyp || !ref || !hyp_len || !ref_len) {
        tf_fail(err, "out of memory for the evaluation");
        goto done;
    }
    s->unk_src = missing;
    int parts = o->threads >= 2 && n >= 2 ? TRAIN_SHARDS : 1;
    int n_dec = o->decode_pairs < 0 ? 0 : o->decode_pairs > 0 && o->decode_pairs < n ? o->decode_pairs : n;
    for (int k = 0; k < TRAIN_SHARDS; k++) {
        EvalPart *p = &part[k];
        *p = (EvalPart){.m = m, .d = d, .o = o, .src_map = src_map, .tgt_map = tgt_map, .base = base,
                        .hyp = hyp, .hyp_len = hyp_len, .ref = ref, .ref_len = ref_len, .cap_T = cap_T,
                        .n_parts = parts, .n_total = n_dec > 0 ? n_dec : n};
        p->from = base + (int)((long long)n * k / parts);
        p->to = base + (int)((long long)n * (k + 1) / parts);
        p->dfrom = base + (int)((long long)n_dec * k / parts);
        p->dto = base + (int)((long long)n_dec * (k + 1) / parts);
        if (k >= parts) {
            p->from = p->to = base + n;
            p->dfrom = p->dto = base + n_dec;
        }
    }
    if (make_refs(&part[0], n, tgt_map, err))
        goto done;
    if (parts == 1)
        eval_part(&part[0]);
    else if (par_run_pair(eval_part, &part[0], &part[1])) {
        tf_fail(err, "cannot start an evaluation thread");
        goto done;
    }
    if (o->stop && *o->stop) {
        tf_fail(err, "evaluation interrupted");
        goto done;
    }
    for (int k = 0; k < parts; k++) {
        if (part[k].rc) {
            if (err)
                *err = part[k].err;
            goto done;
        }
    }
    combine(s, part, parts, n, n_dec);
    s->unk_src = missing;
    rc = 0;
done:
    for (int j = 0; j < n && hyp && ref; j++) {
        free(hyp[j]);
        free(ref[j]);
    }
    free(hyp);
    free(ref);
    free(hyp_len);
    free(ref_len);
    free(src_map);
    free(tgt_map);
    return rc;
}

int trainer_eval(Trainer *t, const EvalOpts *o, EvalStats *s, TfErr *err)
{
    EvalOpts e = *o;
    if (e.threads > t->o.threads)
        e.threads = t->o.threads;
    return tf_evaluate(t->m, t->data, &e, s, err);
}
