/* test_lens_rollout.c - the logit lens and attention rollout against
 * float64 references written here from the definitions (lens.h,
 * rollout.h), on post-LN and pre-LN models, untied, tied and all-tied, over
 * a padded batch of two sentences; the last layer's lens is out.probs bit
 * for bit. */
#include <math.h>

#include "derived.h"
#include "lens.h"
#include "model.h"
#include "ops.h"
#include "rollout.h"
#include "test_util.h"

/* A random model of the variant (its name printed), with its final norm's
 * weights moved off 1 and 0 so that n() matters; a padded batch of two
 * sentences run through. */
static void run_case(const TuVariant *k, TfModel *m, TfTrace *tr)
{
    printf("%s\n", k->name);
    TfConfig c = tu_variant_config((TuSize){16, 4, 24, 2, 3, 14, 14, 16}, k);
    TfErr err;
    expect_true(model_init_random(m, &c, 11, &err) == 0, "%s: model: %s", k->name, err.msg);
    if (m->p.dec_lnf_w)
        for (int i = 0; i < c.d_model; i++) {
            m->p.dec_lnf_w[i] = 0.5f + 0.07f * (float)i;
            m->p.dec_lnf_b[i] = 0.03f * (float)(i % 5) - 0.05f;
        }
    static int src[12] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0}, tgt[10] = {1, 5, 6, 7, 8, 1, 9, 0, 0, 0};
    static int sl[2] = {6, 3}, tl[2] = {5, 2};
    TfBatch b = {2, 6, 5, src, tgt, sl, tl};
    expect_true(trace_build(tr, &m->cfg, 2, 8, TRACE_RECORD, &err) == 0, "trace: %s", err.msg);
    expect_true(tf_forward(m, tr, &b, 0, &err) == 0, "forward: %s", err.msg);
}

/* softmax(W n(y) + b) in double, row by row */
static void ref_lens(const TfModel *m, const TfTrace *tr, int layer, int bi, float *out)
{
    const TfConfig *c = &m->cfg;
    int T = tr->T, C = c->d_model, V = c->tgt_vocab;
    const DecLayerAct *d = &tr->dec[layer];
    const float *y = (c->norm == TF_NORM_POST ? d->n3.norm : d->n3.sum) + (size_t)bi * T * C;
    double n[64], z[64];
    for (int t = 0; t < T; t++) {
        const float *row = y + (size_t)t * C;
        for (int i = 0; i < C; i++)
            n[i] = row[i];
        if (c->norm == TF_NORM_PRE) {
            double mu = 0, var = 0;
            for (int i = 0; i < C; i++)
                mu += n[i] / C;
            for (int i = 0; i < C; i++)
                var += (n[i] - mu) * (n[i] - mu) / C;
            for (int i = 0; i < C; i++)
                n[i] = (n[i] - mu) / sqrt(var + TF_LN_EPS) * m->p.dec_lnf_w[i] + m->p.dec_lnf_b[i];
        }
        double mx = -INFINITY, sum = 0;
        for (int v = 0; v < V; v++) {
            z[v] = m->p.gen_b[v];
            for (int i = 0; i < C; i++)
                z[v] += (double)m->p.gen_w[(size_t)v * C + i] * n[i];
            mx = z[v] > mx ? z[v] : mx;
        }
        for (int v = 0; v < V; v++)
            sum += exp(z[v] - mx);
        for (int v = 0; v < V; v++)
            out[(size_t)t * V + v] = (float)(exp(z[v] - mx) / sum);
    }
}

/* check(variant, model, trace) for each variant's run_case */
static void for_each_variant(void (*check)(const TuVariant *, TfModel *, TfTrace *))
{
    for (int k = 0; k < TU_N_VARIANTS; k++) {
        TfModel m;
        TfTrace tr;
        run_case(&TU_VARIANTS[k], &m, &tr);
        check(&TU_VARIANTS[k], &m, &tr);
        trace_free(&tr);
        model_free(&m);
    }
}

static void check_lens(const TuVariant *k, TfModel *m, TfTrace *tr)
{
    TfErr err;
    int T = tr->T, V = m->cfg.tgt_vocab;
    float got[8 * 64], want[8 * 64];
    for (int bi = 0; bi < 2; bi++)
        for (int l = 0; l < m->cfg.n_dec; l++) {
            expect_true(tf_lens(m, tr, l, bi, got, &err) == 0, "lens: %s", err.msg);
            ref_lens(m, tr, l, bi, want);
            check_close("lens", got, want, (size_t)T * V, 1e-6f, 1e-5f);
        }
    /* the last layer is the output, bit for bit */
    for (int bi = 0; bi < 2; bi++) {
        expect_true(tf_lens(m, tr, m->cfg.n_dec - 1, bi, got, &err) == 0, "lens");
        expect_true(memcmp(got, tr->probs + (size_t)bi * T * V, (size_t)T * V * sizeof *got) == 0,
                    "%s: the last layer's lens equals out.probs exactly", k->name);
    }
    expect_true(tf_lens(m, tr, m->cfg.n_dec, 0, got, &err) < 0 && strstr(err.msg, "out of range"),
                "layer %d of %d refused: '%s'", m->cfg.n_dec, m->cfg.n_dec, err.msg);
}

static void test_lens(void **state)
{
    (void)state;
    for_each_variant(check_lens);
}

/* mean over heads of a (B, NH, Tq, Tk) weights buffer, in double */
static double wmean(const float *w, int bi, int NH, int Tq, int Tk, int i, int j)
{
    double s = 0;
    for (int h = 0; h < NH; h++)
        s += w[(((size_t)bi * NH + h) * Tq + i) * Tk + j];
    return s / NH;
}

/* R_L by the definition: A^_l = A_mean / 2 + I / 2 for every layer, R the
 * product A^_L ... A^_0 (S x S, S <= 8), padded key columns zeroed */
static void ref_rollout(const TfTrace *tr, int layer, int bi, double r[8][8])
{
    int S = tr->S, NH = tr->cfg.n_heads;
    double a[8][8], t[8][8];
    for (int l = 0; l <= layer; l++) {
        for (int i = 0; i < S; i++)
            for (int j = 0; j < S; j++)
                a[i][j] = 0.5 * wmean(tr->enc[l].sa.weights, bi, NH, S, S, i, j) + (i == j ? 0.5 : 0.0);
        for (int i = 0; i < S; i++)
            for (int j = 0; j < S; j++) {
                double s = 0;
                for (int k = 0; k < S; k++)
                    s += a[i][k] * (l == 0 ? (k == j) : r[k][j]);
                t[i][j] = s;
            }
        memcpy(r, t, sizeof t);
    }
    for (int i = 0; i < S; i++)
        for (int j = tr->src_len[bi]; j < S; j++)
            r[i][j] = 0;
}

static void check_rollout(const TuVariant *k, TfModel *m, TfTrace *tr)
{
    (void)k;
    TfErr err;
    int S = tr->S, T = tr->T, NH = m->cfg.n_heads;
    for (int bi = 0; bi < 2; bi++) {
        double r[8][8];
        float got[64], want[64];
        for (int l = 0; l < m->cfg.n_enc; l++) {
            expect_true(tf_rollout_enc(tr, l, bi, got, &err) == 0, "rollout: %s", err.msg);
            ref_rollout(tr, l, bi, r);
            for (int i = 0; i < S; i++)
                for (int j = 0; j < S; j++)
                    want[i * S + j] = (float)r[i][j];
            check_close("enc.rollout", got, want, (size_t)S * S, 1e-7f, 1e-6f);
            /* a real row of a rollout sums to 1 (each A^ is a stochastic matrix) */
            double sum = 0;
            for (int j = 0; j < S; j++)
                sum += got[j];
            expect_true(fabs(sum - 1) < 1e-5, "row 0 sums to %.7f", sum);
        }
        ref_rollout(tr, m->cfg.n_enc - 1, bi, r);
        for (int l = 0; l < m->cfg.n_dec; l++) {
            expect_true(tf_rollout_cross(tr, l, bi, got, &err) == 0, "cross rollout: %s", err.msg);
            for (int i = 0; i < T; i++)
                for (int j = 0; j < S; j++) {
                    double s = 0;
                    for (int q = 0; q < S; q++)
                        s += wmean(tr->dec[l].ca.weights, bi, NH, T, S, i, q) * r[q][j];
                    want[i * S + j] = (float)s;
                }
            check_close("dec.cross.rollout", got, want, (size_t)T * S, 1e-7f, 1e-6f);
            for (int i = 0; i < T; i++)
                for (int j = tr->src_len[bi]; j < S; j++)
                    expect_true(got[i * S + j] == 0, "padded key %d of row %d is %g", j, i, got[i * S + j]);
        }
    }
}

static void test_rollout(void **state)
{
    (void)state;
    for_each_variant(check_rollout);
}

/* dump's door: names, layers and views */
static void test_derived_views(void **state)
{
    (void)state;
    TfModel m;
    TfTrace tr;
    TfErr err;
    run_case(&TU_VARIANTS[1], &m, &tr);
    expect_true(tf_derived_find("dec.lens") == DS_DEC_LENS && tf_derived_find("enc.rollout") == DS_ENC_ROLLOUT &&
                    tf_derived_find("dec.cross.rollout") == DS_CROSS_ROLLOUT && tf_derived_find("dec.self.q") < 0,
                "derived stage names");
    static const int rows[DS_COUNT] = {5, 6, 5};
    for (int id = 0; id < DS_COUNT; id++) {
        float *buf;
        TfView v;
        expect_true(tf_derived_view(&m, &tr, (DerivedId)id, 1, 1, &buf, &v, &err) == 0, "%s: %s",
                    tf_derived_name((DerivedId)id), err.msg);
        expect_true(v.rows == rows[id] && v.cols == (id == DS_DEC_LENS ? 14 : 6) && v.b == 1 && v.layer == 1 &&
                        strcmp(v.name, tf_derived_name((DerivedId)id)) == 0,
                    "%s: %d x %d", v.name, v.rows, v.cols);
        free(buf);
        expect_true(tf_derived_view(&m, &tr, (DerivedId)id, 9, 0, &buf, &v, &err) < 0 && !buf, "layer 9 refused");
    }
    trace_free(&tr);
    model_free(&m);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_lens), cmocka_unit_test(test_rollout),
           cmocka_unit_test(test_derived_views));
}
