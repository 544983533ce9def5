/* test_qkmap.c - the joint query/key map against a float64 reference
 * written here from the definition (qkmap.h): the normalisation step by
 * step, then the two principal axes by power iteration with deflation
 * (another method than the engine's Jacobi rotations); coordinates agree up
 * to the sign of each axis. Also the rows a trace gives (real positions
 * only, a padded batch) and the normalisation's promise: scores unchanged
 * up to a constant per row. */
#include <math.h>

#include "model.h"
#include "qkmap.h"
#include "rng.h"
#include "test_util.h"

enum { DK = 6, NQ = 7, NK = 9 };

/* reference: x (NQ + NK rows of DK) normalised and centred, then axes */
static void reference(const float *q, const float *k, double out_q[][2], double out_k[][2], double expl[2])
{
    enum { N = NQ + NK };
    double x[N][DK], mq[DK] = {0}, mk[DK] = {0};
    for (int d = 0; d < DK; d++) {
        for (int i = 0; i < NQ; i++)
            mq[d] += q[i * DK + d] / (double)NQ;
        for (int j = 0; j < NK; j++)
            mk[d] += k[j * DK + d] / (double)NK;
    }
    double nq = 0, nk = 0;
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int d = 0; d < DK; d++) {
            x[i][d] = i < NQ ? q[i * DK + d] : k[(i - NQ) * DK + d] - mk[d] + mq[d];
            s += x[i][d] * x[i][d];
        }
        if (i < NQ)
            nq += sqrt(s) / NQ;
        else
            nk += sqrt(s) / NK;
    }
    double c = sqrt(nk / nq), mu[DK] = {0};
    for (int i = 0; i < N; i++)
        for (int d = 0; d < DK; d++) {
            x[i][d] *= i < NQ ? c : 1 / c;
            mu[d] += x[i][d] / N;
        }
    double cov[DK][DK] = {{0}}, total = 0;
    for (int i = 0; i < N; i++)
        for (int a = 0; a < DK; a++)
            for (int b = 0; b < DK; b++)
                cov[a][b] += (x[i][a] - mu[a]) * (x[i][b] - mu[b]) / N;
    for (int a = 0; a < DK; a++)
        total += cov[a][a];
    for (int axis = 0; axis < 2; axis++) {
        double u[DK], lam = 0;
        for (int d = 0; d < DK; d++)
            u[d] = 1.0 + 0.1 * d;
        for (int it = 0; it < 20000; it++) {
            double v[DK] = {0}, n = 0;
            for (int a = 0; a < DK; a++)
                for (int b = 0; b < DK; b++)
                    v[a] += cov[a][b] * u[b];
            for (int a = 0; a < DK; a++)
                n += v[a] * v[a];
            n = sqrt(n);
            lam = n;
            for (int a = 0; a < DK; a++)
                u[a] = v[a] / n;
        }
        expl[axis] = lam / total;
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int d = 0; d < DK; d++)
                s += (x[i][d] - mu[d]) * u[d];
            if (i < NQ)
                out_q[i][axis] = s;
            else
                out_k[i - NQ][axis] = s;
        }
        for (int a = 0; a < DK; a++) /* deflate */
            for (int b = 0; b < DK; b++)
                cov[a][b] -= lam * u[a] * u[b];
    }
}

static void test_against_reference(void **state)
{
    (void)state;
    Rng r;
    rng_seed(&r, 7);
    for (int round = 0; round < 5; round++) {
        float q[NQ * DK], k[NK * DK];
        /* anisotropic clouds, keys off-centre: every step of the
         * normalisation matters */
        for (int i = 0; i < NQ * DK; i++)
            q[i] = (float)(rng_normal(&r) * (1.0 + (i % DK))) + 0.5f;
        for (int i = 0; i < NK * DK; i++)
            k[i] = (float)(rng_normal(&r) * 3.0 * (1.0 + ((i + 2) % DK) * 0.5)) - 2.0f * (float)(i % DK);
        TfQkMap m;
        TfErr err;
        expect_true(tf_qkmap(q, NQ, DK, k, NK, DK, DK, &m, &err) == 0, "map: %s", err.msg);
        double wq[NQ][2], wk[NK][2], ex[2];
        reference(q, k, wq, wk, ex);
        double worst = 0, scale = 0;
        for (int a = 0; a < 2; a++) {
            /* the sign of each axis is free: take the one that fits */
            double dp = 0, dn = 0;
            for (int i = 0; i < NQ; i++) {
                dp = fmax(dp, fabs(m.q[2 * i + a] - wq[i][a]));
                dn = fmax(dn, fabs(m.q[2 * i + a] + wq[i][a]));
                scale = fmax(scale, fabs(wq[i][a]));
            }
            for (int j = 0; j < NK; j++) {
                dp = fmax(dp, fabs(m.k[2 * j + a] - wk[j][a]));
                dn = fmax(dn, fabs(m.k[2 * j + a] + wk[j][a]));
                scale = fmax(scale, fabs(wk[j][a]));
            }
            worst = fmax(worst, fmin(dp, dn));
            expect_true(fabs(m.explained[a] - ex[a]) < 1e-9, "explained[%d] %.12f want %.12f", a, m.explained[a],
                        ex[a]);
        }
        printf("  round %d: worst %.3g of scale %.3g, explained %.4f %.4f\n", round, worst, scale, m.explained[0],
               m.explained[1]);
        expect_true(worst <= 1e-6 * scale, "coordinates within 1e-6 of the scale, worst %.3g", worst);
        expect_true(m.explained[0] >= m.explained[1] && m.explained[0] + m.explained[1] <= 1 + 1e-12,
                    "axes in order, shares at most 1");
        tf_qkmap_free(&m);
    }
    TfQkMap m;
    TfErr err;
    float one[DK] = {0};
    expect_true(tf_qkmap(one, 0, DK, one, 1, DK, DK, &m, &err) < 0, "no query: refused");
}

/* the rows of a padded batch: real positions only, the head's columns */
static void test_trace_rows(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    tu_model(&m, 5, 16, 2, 16, 1, 1, 12, 12, 16);
    int src[10] = {4, 5, 6, 7, 8, 9, 10, 0, 0, 0}, tgt[8] = {1, 5, 6, 7, 1, 8, 0, 0};
    int sl[2] = {5, 2}, tl[2] = {4, 2};
    TfTrace tr;
    expect_true(trace_build(&tr, &m.cfg, 2, 8, TRACE_RECORD, &err) == 0, "trace");
    TfBatch b = {2, 5, 4, src, tgt, sl, tl};
    expect_true(tf_forward(&m, &tr, &b, 0, &err) == 0, "forward");
    float q[16 * 8], k[16 * 8];
    int qp[16], kp[16], nq = 0, nk = 0, dk = 8;
    expect_true(tf_qk_rows(&tr, TF_ATTN_CROSS, 0, 1, 1, q, qp, &nq, k, kp, &nk, 16, &err) == 0, "%s", err.msg);
    expect_true(nq == 2 && nk == 2, "sentence 2: %d queries (want 2), %d keys (want 2)", nq, nk);
    const AttnAct *a = &tr.dec[0].ca;
    expect_true(memcmp(q + dk, a->q + (size_t)(1 * 4 + 1) * a->qs + dk, (size_t)dk * sizeof *q) == 0,
                "query 1 is row 1 of sentence 2, head 1's columns");
    expect_true(memcmp(k + dk, a->k + (size_t)(1 * 5 + 1) * a->kvs + dk, (size_t)dk * sizeof *k) == 0,
                "key 1 is the encoder-side row 1 of sentence 2");
    expect_true(tf_qk_rows(&tr, TF_ATTN_ENC, 0, 0, 0, q, qp, &nq, k, kp, &nk, 16, &err) == 0, "%s", err.msg);
    expect_true(nq == 7 && nk == 7 && qp[6] == 4, "the encoder's 5 real rows appended: %d", nq);
    expect_true(tf_qk_rows(&tr, TF_ATTN_ENC, 0, 0, 0, q, qp, &nq, k, kp, &nk, 8, &err) < 0, "over capacity refused");
    expect_true(tf_qk_rows(&tr, TF_ATTN_DEC, 1, 0, 0, q, qp, &nq, k, kp, &nk, 16, &err) < 0, "layer 1 of 1 refused");
    /* gathered as points: sentence 2's decoder queries, then sentence 1's
     * (the arrays grow), each with its token id */
    TfQkPoints pt = {0};
    expect_true(tf_qk_points_add(&pt, &tr, TF_ATTN_DEC, 0, 1, 1, &err) == 0 &&
                    tf_qk_points_add(&pt, &tr, TF_ATTN_DEC, 0, 1, 0, &err) == 0, "%s", err.msg);
    expect_true(pt.q.n == 6 && pt.k.n == 6 && pt.cap >= 6, "2 + 4 queries and keys: %d, %d", pt.q.n, pt.k.n);
    expect_true(pt.q.tok[1] == tgt[4 + 1] && pt.q.pos[5] == 3 && pt.k.tok[5] == tgt[3],
                "token ids of their own sentence: %d %d %d", pt.q.tok[1], pt.q.pos[5], pt.k.tok[5]);
    expect_true(memcmp(pt.q.x + 2 * dk, tr.dec[0].sa.q + dk, (size_t)dk * sizeof(float)) == 0,
                "point 3 is sentence 1's first query, head 1's columns");
    expect_true(tf_qk_points_add(&pt, &tr, TF_ATTN_DEC, 1, 0, 0, &err) < 0 && pt.q.n == 6, "a bad layer adds nothing");
    tf_qk_points_free(&pt);
    trace_free(&tr);
    model_free(&m);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_against_reference), cmocka_unit_test(test_trace_rows));
}
