/* train.c - the trainer: batches, shards, threads, optimizer steps and
 * resumable checkpoints (see train.h).
 *
 * One step:
 *   1. take the step's batch from the epoch's order (below) and cut it into
 *      TRAIN_SHARDS shards, each padded to its own longest sentence;
 *   2. each shard, on its own thread: forward pass with dropout, loss,
 *      dLoss/dlogits, backward pass into its own gradient block;
 *   3. sum the shards' gradients in a fixed order and take the global norm;
 *   4. clip, and one Adam step with the scheduled learning rate.
 * Steps 3 and 4 are split over the threads by parameter range. Each piece
 * of work is fixed by the step number alone, never by which thread ran it,
 * so the result is the same with one thread or two.
 *
 * The data order is a function of (seed, epoch): the training pairs are
 * shuffled, sorted by length within chunks of 64 batches (so a batch holds
 * sentences of similar length and little padding), cut into batches, and
 * the batches shuffled. Dropout masks are drawn from a generator seeded by
 * (seed, step, shard). The whole training state is therefore the
 * parameters, Adam's two moments and the step count - exactly what a
 * training checkpoint holds - and a resumed run continues bit for bit. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "num.h"
#include "ops.h"
#include "parallel.h"
#include <sched.h>
#include "train.h"

#define SORT_CHUNK 64 /* batches per length-sorted chunk */

/* ---------------------------------------------------------------------- */
/* Options                                                                 */
/* ---------------------------------------------------------------------- */

void train_opts_default(TrainOpts *o)
{
    memset(o, 0, sizeof *o);
    o->batch = 32;
    o->warmup = 4000;
    o->lr_scale = 1.0f;
    o->beta1 = 0.9f;
    o->beta2 = 0.98f;
    o->adam_eps = 1e-9f;
    o->clip = 1.0f;
    o->dropout = 0.1f;
    o->label_smoothing = 0.1f;
    o->seed = 1;
    o->threads = TRAIN_SHARDS;
}

int train_opts_check(const TrainOpts *o, TfErr *err)
{
    if (o->batch < 1 || o->batch > 4096)
        return tf_fail(err, "batch %d is out of range [1, 4096]", o->batch);
    if (o->warmup < 1)
        return tf_fail(err, "warmup must be at least 1 step, not %d", o->warmup);
    if (!(o->lr_scale > 0) || !isfinite(o->lr_scale))
        return tf_fail(err, "learning-rate scale %g must be positive", o->lr_scale);
    if (!(o->beta1 >= 0 && o->beta1 < 1) || !(o->beta2 >= 0 && o->beta2 < 1))
        return tf_fail(err, "Adam betas %g, %g must be in [0, 1)", o->beta1, o->beta2);
    if (!(o->adam_eps >= 0) || !isfinite(o->adam_eps))
        return tf_fail(err, "Adam epsilon %g must be >= 0", o->adam_eps);
    if (!(o->clip >= 0) || !isfinite(o->clip))
        return tf_fail(err, "gradient clip %g must be >= 0 (0 = off)", o->clip);
    if (!(o->dropout >= 0 && o->dropout < 1))
        return tf_fail(err, "dropout %g is not in [0, 1)", o->dropout);
    if (!(o->label_smoothing >= 0 && o->label_smoothing < 1))
        return tf_fail(err, "label smoothing %g is not in [0, 1)", o->label_smoothing);
    if (o->threads < 1 || o->threads > TRAIN_SHARDS)
        return tf_fail(err, "threads %d is out of range [1, %d]", o->threads, TRAIN_SHARDS);
    return 0;
}

/* The shortest decimal that reads back as exactly v (tf_float_text). */
static int meta_float(TfModel *m, const char *key, float v)
{
    char buf[40];
    tf_float_text(buf, sizeof buf, v, 6);
    return model_meta_set(m, key, buf);
}

static int meta_ll(TfModel *m, const char *key, long long v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%lld", v);
    return model_meta_set(m, key, buf);
}

int train_opts_to_meta(const TrainOpts *o, TfModel *m)
{
    int rc = meta_ll(m, "train_batch", o->batch);
    rc |= meta_ll(m, "train_warmup", o->warmup);
    rc |= meta_float(m, "train_lr_scale", o->lr_scale);
    rc |= meta_float(m, "train_beta1", o->beta1);
    rc |= meta_float(m, "train_beta2", o->beta2);
    rc |= meta_float(m, "train_adam_eps", o->adam_eps);
    rc |= meta_float(m, "train_clip", o->clip);
    rc |= meta_float(m, "train_dropout", o->dropout);
    rc |= meta_float(m, "train_label_smoothing", o->label_smoothing);
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->seed);
    rc |= model_meta_set(m, "train_seed", buf);
    return rc ? -1 : 0;
}

static int read_num(const TfModel *m, const char *key, double lo, double hi,
                    double *out, TfErr *err)
{
    const char *s = model_meta_get(m, key);
    if (!s)
        return tf_fail(err, "metadata has no '%s'", key);
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return tf_fail(err, "metadata '%s' = \"%.40s\" is not a number in [%g, %g]",
                       key, s, lo, hi);
    *out = v;
    return 0;
}

int train_opts_from_meta(TrainOpts *o, const TfModel *m, TfErr *err)
{
    train_opts_default(o);
    double v[10];
    static const char *const keys[10] = {
        "train_batch", "train_warmup", "train_lr_scale", "train_beta1",
        "train_beta2", "train_adam_eps", "train_clip", "train_dropout",
        "train_label_smoothing", "train_seed"};
    static const double hi[10] = {4096, 1e12, 1e30, 1, 1, 1, 1e30, 1, 1, 1.8446744073709552e19};
    for (int i = 0; i < 10; i++)
        if (read_num(m, keys[i], 0, hi[i], &v[i], err))
            return -1;
    o->batch = (int)v[0];
    o->warmup = (int)v[1];
    o->lr_scale = (float)v[2];
    o->beta1 = (float)v[3];
    o->beta2 = (float)v[4];
    o->adam_eps = (float)v[5];
    o->clip = (float)v[6];
    o->dropout = (float)v[7];
    o->label_smoothing = (float)v[8];
    o->seed = strtoull(model_meta_get(m, "train_seed"), NULL, 10);
    return train_opts_check(o, err);
}

/* ---------------------------------------------------------------------- */
/* Small helpers                                                           */
/* ---------------------------------------------------------------------- */

/* splitmix64 over three words: independent streams per (seed, a, b) */
static uint64_t mix3(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t z = seed;
    uint64_t w[2] = {a, b};
    for (int i = 0; i < 3; i++) {
        z += 0x9e3779b97f4a7c15ull + (i ? w[i - 1] : 0);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
    }
    return z;
}

int *vocab_id_map(const Vocab *from, const Vocab *to, int *n_missing)
{
    int *map = malloc((size_t)(from->n > 0 ? from->n : 1) * sizeof *map);
    int missing = 0;
    if (!map)
        return NULL;
    for (int i = 0; i < from->n; i++) {
        if (i < TOK_NSPECIAL) {
            map[i] = i;
            continue;
        }
        const char *s = from->tok[i];
        map[i] = vocab_find(to, s, (int)strlen(s));
        missing += map[i] < 0;
    }
    if (n_missing)
        *n_missing = missing;
    return map;
}

/* ---------------------------------------------------------------------- */
/* The helper thread                                                       */
/* ---------------------------------------------------------------------- */

/* Spin briefly on a counter before sleeping on the condition variable:
 * the other thread usually finishes its part within microseconds, and a
 * sleep and wake-up through the kernel costs tens of them. */
static void spin_until(const unsigned long long *counter, unsigned long long value)
{
    for (int i = 0; i < 20000; i++) {
        if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) == value)
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause(); /* let the sibling hyper-thread run */
#endif
    }
}

static void *worker_main(void *arg)
{
    Trainer *t = arg;
    unsigned long long seen = 0;
    par_solo(1); /* one of two threads of products (see run_parts) */
    pthread_mutex_lock(&t->mu);
    for (;;) {
        if (!t->quit && t->job_gen == seen) {
            pthread_mutex_unlock(&t->mu);
            spin_until(&t->job_gen, seen + 1);
            pthread_mutex_lock(&t->mu);
        }
        while (!t->quit && t->job_gen == seen)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->quit)
            break;
        seen = t->job_gen;
        TrainJob job = t->job;
        pthread_mutex_unlock(&t->mu);
        job(t, 1);
        pthread_mutex_lock(&t->mu);
        __atomic_store_n(&t->job_done, seen, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* Run job(t, 0) and job(t, 1): on two threads, or one after the other.
 * Either way every product of a job is one call on its own thread
 * (par_solo), so the bits are the same with one thread or two. */
static void run_parts(Trainer *t, TrainJob job)
{
    int was = par_solo(1);
    if (!t->has_thread) {
        job(t, 0);
        job(t, 1);
        par_solo(was);
        return;
    }
    /* two threads of products already: hold the product helper so that
     * neither splits its products again (see parallel.h) */
    while (!par_claim())
        sched_yield();
    pthread_mutex_lock(&t->mu);
    t->job = job;
    __atomic_store_n(&t->job_gen, t->job_gen + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    job(t, 0);
    spin_until(&t->job_done, t->job_gen);
    pthread_mutex_lock(&t->mu);
    while (t->job_done != t->job_gen)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    par_release();
    par_solo(was);
}

/* ---------------------------------------------------------------------- */
/* Building and freeing                                                    */
/* ---------------------------------------------------------------------- */

static int shard_build(TrainShard *sh, const TfConfig *cfg, int cap_B, int cap_T,
                       size_t n_params, TfErr *err)
{
    if (trace_build(&sh->tr, cfg, cap_B, cap_T, TRACE_RECORD | TRACE_TRAIN, err) ||
        backwork_build(&sh->w, cfg, cap_B, cap_T, err))
        return -1;
    if (batch_build(&sh->b, cap_B, cap_T, err))
        return -1;
    sh->grad = calloc(n_params, sizeof(float));
    if (!sh->grad)
        return tf_fail(err, "out of memory for a training shard");
    params_point(&sh->g, cfg, sh->grad);
    return 0;
}

static void shard_free(TrainShard *sh)
{
    trace_free(&sh->tr);
    backwork_free(&sh->w);
    free(sh->grad);
    batch_free(&sh->b);
    memset(sh, 0, sizeof *sh);
}

/* Ids of the data set must exist in the model's vocabularies. */
static int build_maps(Trainer *t, TfErr *err)
{
    const Dataset *d = t->data;
    int miss_s = 0, miss_t = 0;
    t->src_map = vocab_id_map(&d->src, &t->m->src_vocab, &miss_s);
    t->tgt_map = vocab_id_map(&d->tgt, &t->m->tgt_vocab, &miss_t);
    if (!t->src_map || !t->tgt_map)
        return tf_fail(err, "out of memory");
    for (int i = 0; i < d->src.n; i++)
        if (t->src_map[i] < 0)
            return tf_fail(err, "%s: source token '%s' is not in the model's vocabulary "
                           "(%d such tokens)", d->name, d->src.tok[i], miss_s);
    for (int i = 0; i < d->tgt.n; i++)
        if (t->tgt_map[i] < 0)
            return tf_fail(err, "%s: target token '%s' is not in the model's vocabulary "
                           "(%d such tokens)", d->name, d->tgt.tok[i], miss_t);
    return 0;
}

static int start_thread(Trainer *t, TfErr *err)
{
    if (t->o.threads < 2)
        return 0;
    if (pthread_create(&t->thread, NULL, worker_main, t) != 0)
        return tf_fail(err, "cannot start a training thread");
    t->has_thread = 1;
    return 0;
}

int trainer_init(Trainer *t, TfModel *m, const Dataset *d, const TrainOpts *o,
                 TfErr *err)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->order_epoch = -1;
    t->m = m;
    t->data = d;
    if (train_opts_check(o, err))
        goto fail;
    /* the backward pass is the paper's: ReLU, scaled embeddings, our ids */
    if (m->cfg.act != TF_ACT_RELU || m->cfg.kind != TF_KIND_STEPFORMER || m->cfg.no_embed_scale) {
        tf_fail(err, "training is for Stepformer models with ReLU; this is a %s model with %s",
                m->cfg.kind == TF_KIND_MARIAN ? "MarianMT" : "Stepformer", cfg_act_name(m->cfg.act));
        goto fail;
    }
    t->o = *o;
    if (d->n_train < 1) {
        tf_fail(err, "%s: no training pairs", d->name);
        goto fail;
    }
    t->cap_T = d->max_src > d->max_tgt + 1 ? d->max_src : d->max_tgt + 1;
    if (t->cap_T > m->cfg.max_len) {
        tf_fail(err, "%s: sentences of up to %d tokens (with <bos>) do not fit the "
                "model's max_len %d", d->name, t->cap_T, m->cfg.max_len);
        goto fail;
    }
    m->cfg.dropout = o->dropout;
    m->cfg.label_smoothing = o->label_smoothing;
    if (build_maps(t, err))
        goto fail;
    size_t n = m->n_params;
    int cap_B = (o->batch + TRAIN_SHARDS - 1) / TRAIN_SHARDS;
    t->moments = calloc(2 * n, sizeof(float));
    t->order = malloc((size_t)d->n_train * 2 * sizeof(int));
    t->batch_start = malloc(((size_t)d->n_train + 2) * sizeof(int));
    if (!t->moments || !t->order || !t->batch_start) {
        tf_fail(err, "out of memory for the optimizer state");
        goto fail;
    }
    t->adam_m = t->moments;
    t->adam_v = t->moments + n;
    t->n_batches = (d->n_train + o->batch - 1) / o->batch;
    for (int k = 0; k < TRAIN_SHARDS; k++)
        if (shard_build(&t->sh[k], &m->cfg, cap_B, t->cap_T, n, err))
            goto fail;
    /* Each shard runs single-threaded products on its own core (while a
     * step runs it holds the product helper: see parallel.h). */
    par_init();
    if (start_thread(t, err))
        goto fail;
    return 0;
fail:
    trainer_free(t);
    return -1;
}

void trainer_free(Trainer *t)
{
    if (!t)
        return;
    if (t->has_thread) {
        pthread_mutex_lock(&t->mu);
        t->quit = 1;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
    }
    for (int k = 0; k < TRAIN_SHARDS; k++)
        shard_free(&t->sh[k]);
    free(t->moments);
    free(t->order);
    free(t->batch_start);
    free(t->src_map);
    free(t->tgt_map);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------- */
/* The data order                                                          */
/* ---------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Shuffle, sort by length within chunks, cut into batches, shuffle the
 * batches. Fills t->order and t->batch_start for `epoch`. */
static int build_epoch(Trainer *t, long long epoch, TfErr *err)
{
    const Dataset *d = t->data;
    int n = d->n_train, bs = t->o.batch, nb = t->n_batches;
    int *shuf = t->order + n; /* second half of order: scratch */
    size_t chunk = (size_t)bs * SORT_CHUNK;
    uint64_t *key = malloc((chunk < (size_t)n ? chunk : (size_t)n) * sizeof *key);
    int *perm = malloc((size_t)nb * sizeof *perm);
    if (!key || !perm) {
        free(key);
        free(perm);
        return tf_fail(err, "out of memory for the data order");
    }
    Rng r;
    rng_seed(&r, mix3(t->o.seed, 0xda7a, (uint64_t)epoch));
    for (int i = 0; i < n; i++)
        shuf[i] = i;
    rng_shuffle(&r, shuf, n);
    /* key: source length, target length, then position (unique, so the
     * sort is deterministic whatever qsort does with ties) */
    for (size_t c0 = 0; c0 < (size_t)n; c0 += chunk) {
        size_t cn = (size_t)n - c0 < chunk ? (size_t)n - c0 : chunk;
        for (size_t i = 0; i < cn; i++) {
            const Pair *p = &d->pairs[shuf[c0 + i]];
            key[i] = ((uint64_t)(p->src_len & 0xffff) << 48) |
                     ((uint64_t)(p->tgt_len & 0xffff) << 32) | (uint64_t)(c0 + i);
        }
        qsort(key, cn, sizeof *key, cmp_u64);
        for (size_t i = 0; i < cn; i++)
            t->order[c0 + i] = shuf[(uint32_t)key[i]];
    }
    for (int b = 0; b < nb; b++)
        perm[b] = b;
    rng_shuffle(&r, perm, nb);
    int at = 0;
    for (int b = 0; b < nb; b++) {
        int from = perm[b] * bs, len = n - from < bs ? n - from : bs;
        t->batch_start[b] = at;
        memcpy(shuf + at, t->order + from, (size_t)len * sizeof(int));
        at += len;
    }
    t->batch_start[nb] = at;
    memcpy(t->order, shuf, (size_t)n * sizeof(int));
    t->order_epoch = epoch;
    free(key);
    free(perm);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* One step                                                                */
/* ---------------------------------------------------------------------- */

/* Forward, loss and backward of shard `part`. The gradient is that of the
 * loss summed over the shard times t->loss_scale = 1 / (target tokens of
 * the whole batch), so the shards add up to the gradient of the mean. */
static void job_shard(Trainer *t, int part)
{
    TrainShard *sh = &t->sh[part];
    sh->rc = 0;
    sh->loss_sum = 0;
    sh->n_scored = sh->n_correct = 0;
    if (sh->b.B == 0)
        return;
    const TfModel *m = t->m;
    int V = m->cfg.tgt_vocab, N = sh->b.B * sh->b.T;
    /* sh->grad is zero here: job_reduce and job_adam clear it after use */
    rng_seed(&sh->tr.drop_rng, mix3(t->o.seed, (uint64_t)t->step, (uint64_t)part + 1));
    TfBatch b = batch_input(&sh->b);
    if (tf_forward(m, &sh->tr, &b, 1, &sh->err)) {
        sh->rc = -1;
        return;
    }
    float eps = t->o.label_smoothing;
    sh->loss_sum = loss_forward(NULL, sh->tr.logits, sh->tr.probs, sh->b.tgt_out,
                                N, V, eps, &sh->n_scored, &sh->n_correct);
    memset(sh->w.d_logits, 0, (size_t)N * V * sizeof(float));
    loss_backward(sh->w.d_logits, sh->tr.probs, sh->b.tgt_out, N, V, eps, t->loss_scale);
    if (tf_backward(m, &sh->tr, &sh->w, &sh->g, &sh->err))
        sh->rc = -1;
}

/* This part's range of the parameter block. */
static void part_range(const Trainer *t, int part, size_t *from, size_t *to)
{
    size_t n = t->m->n_params, half = (n / 2 + 15) & ~(size_t)15;
    if (half > n)
        half = n;
    *from = part == 0 ? 0 : half;
    *to = part == 0 ? half : n;
}

/* Sum the shards' gradients into shard 0's block (never empty: it gets the
 * odd sentence); squared norm per part. */
static void job_reduce(Trainer *t, int part)
{
    size_t a, b;
    part_range(t, part, &a, &b);
    float *g = t->sh[0].grad;
    for (int k = 1; k < TRAIN_SHARDS; k++) {
        if (t->sh[k].b.B == 0)
            continue;
        float *h = t->sh[k].grad;
        for (size_t i = a; i < b; i++)
            g[i] += h[i];
        /* cleared now, while in cache, ready for the next step */
        memset(h + a, 0, (b - a) * sizeof(float));
    }
    t->gsum[part] = grad_sumsq(g + a, b - a);
}

static void job_adam(Trainer *t, int part)
{
    size_t a, b;
    part_range(t, part, &a, &b);
    AdamHyper h = {t->o.beta1, t->o.beta2, t->o.adam_eps};
    adam_update(t->m->block + a, t->sh[0].grad + a, t->adam_m + a, t->adam_v + a,
                b - a, &h, t->lr, t->gscale, t->step + 1);
    memset(t->sh[0].grad + a, 0, (b - a) * sizeof(float));
}

/* After a failed step: every gradient block back to zero. */
static void clear_grads(Trainer *t)
{
    for (int k = 0; k < TRAIN_SHARDS; k++)
        if (t->sh[k].grad)
            memset(t->sh[k].grad, 0, t->m->n_params * sizeof(float));
}

/* Cut the step's batch into shards. Returns target tokens. */
static int prepare(Trainer *t, int *src_tokens, TfErr *err)
{
    long long epoch = t->step / t->n_batches;
    int bi = (int)(t->step % t->n_batches);
    if (epoch != t->order_epoch && build_epoch(t, epoch, err))
        return -1;
    const int *idx = t->order + t->batch_start[bi];
    int B = t->batch_start[bi + 1] - t->batch_start[bi];
    int tokens = 0, src = 0, first = 0;
    for (int k = 0; k < TRAIN_SHARDS; k++) {
        int nb = B / TRAIN_SHARDS + (k < B % TRAIN_SHARDS);
        t->sh[k].first = first;
        batch_fill(&t->sh[k].b, t->data, idx + first, 0, nb, t->src_map, t->tgt_map);
        tokens += batch_tgt_tokens(&t->sh[k].b);
        src += batch_src_tokens(&t->sh[k].b);
        first += nb;
    }
    *src_tokens = src;
    return tokens;
}

int trainer_step(Trainer *t, TrainStats *s, TfErr *err)
{
    double t0 = tf_seconds();
    int src_tokens = 0;
    int tokens = prepare(t, &src_tokens, err);
    if (tokens <= 0)
        return tokens < 0 ? -1 : tf_fail(err, "empty batch");
    /* the loss is the mean over the batch's target tokens */
    t->loss_scale = 1.0f / (float)tokens;
    run_parts(t, job_shard);
    double loss = 0;
    int correct = 0;
    for (int k = 0; k < TRAIN_SHARDS; k++) {
        if (t->sh[k].rc) {
            if (err)
                *err = t->sh[k].err;
            clear_grads(t);
            return -1;
        }
        loss += t->sh[k].loss_sum;
        correct += t->sh[k].n_correct;
    }
    loss /= tokens;
    if (!isfinite(loss)) {
        clear_grads(t);
        return tf_fail(err, "the loss is %s at step %lld; parameters kept from "
                       "step %lld", isnan(loss) ? "NaN" : "infinite", t->step + 1, t->step);
    }
    run_parts(t, job_reduce);
    double norm = sqrt(t->gsum[0] + t->gsum[1]);
    if (!isfinite(norm)) {
        clear_grads(t);
        return tf_fail(err, "the gradient is not finite at step %lld; parameters "
                       "kept from step %lld", t->step + 1, t->step);
    }
    t->lr = (float)lr_schedule(t->m->cfg.d_model, t->o.warmup, t->o.lr_scale, t->step + 1);
    t->gscale = t->o.clip > 0 && norm > t->o.clip ? (float)(t->o.clip / norm) : 1.0f;
    run_parts(t, job_adam);
    t->step++;
    if (s) {
        memset(s, 0, sizeof *s);
        s->step = t->step;
        s->loss = loss;
        s->token_acc = (double)correct / tokens;
        s->lr = t->lr;
        s->grad_norm = norm;
        s->sentences = t->sh[0].b.B + t->sh[1].b.B;
        s->tokens = tokens;
        s->src_tokens = src_tokens;
        s->seconds = tf_seconds() - t0;
        s->tokens_per_s = s->seconds > 0 ? tokens / s->seconds : 0;
        s->epoch = (t->step - 1) / t->n_batches;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Checkpoints                                                             */
/* ---------------------------------------------------------------------- */

int trainer_restore(Trainer *t, const CkptOptim *opt, TfErr *err)
{
    if (!opt || !opt->m || !opt->v)
        return tf_fail(err, "the checkpoint holds no optimizer state to resume from");
    size_t n = t->m->n_params;
    memcpy(t->adam_m, opt->m, n * sizeof(float));
    memcpy(t->adam_v, opt->v, n * sizeof(float));
    t->step = opt->step;
    t->order_epoch = -1;
    return 0;
}

int trainer_save(Trainer *t, const char *path, int with_optimizer, TfErr *err)
{
    if (train_opts_to_meta(&t->o, t->m) || meta_ll(t->m, "train_step", t->step))
        return tf_fail(err, "%s: out of memory for metadata", path);
    CkptOptim opt = {t->adam_m, t->adam_v, t->step};
    return ckpt_save_full(t->m, with_optimizer ? &opt : NULL, path, err);
}

TfTie trainer_default_tie(const Dataset *d)
{
    int same = d->src.n == d->tgt.n;
    for (int i = 0; same && i < d->src.n; i++)
        same = strcmp(d->src.tok[i], d->tgt.tok[i]) == 0;
    return same ? TF_TIE_ALL : TF_TIE_NONE;
}

int trainer_model_new(TfModel *m, const TfConfig *cfg, const Dataset *d,
                      uint64_t seed, TfErr *err)
{
    TfConfig c = *cfg;
    c.src_vocab = d->src.n;
    c.tgt_vocab = d->tgt.n;
    int need = d->max_src > d->max_tgt + 1 ? d->max_src : d->max_tgt + 1;
    if (c.max_len < need)
        c.max_len = need;
    if (c.tie == TF_TIE_ALL) {
        int same = d->src.n == d->tgt.n;
        for (int i = 0; same && i < d->src.n; i++)
            same = strcmp(d->src.tok[i], d->tgt.tok[i]) == 0;
        if (!same)
            return tf_fail(err, "%s: sharing all embeddings needs one vocabulary, "
                           "but the source and target vocabularies differ", d->name);
    }
    if (model_build(m, &c, err))
        return -1;
    params_init(&m->p, &c, seed);
    if (vocab_copy(&m->src_vocab, &d->src, err) || vocab_copy(&m->tgt_vocab, &d->tgt, err)) {
        model_free(m);
        return -1;
    }
    return 0;
}
