/* test_importance.c - head importance against a reference written here
 * from the definition (importance.h): for every head a whole new pass with
 * that head ablated, one pair at a time, -log p and argmax summed in
 * double; post-LN and pre-LN, tied and untied models. The one-step-at-a-time
 * path and the two-thread path give the same figures. */
#include <math.h>

#include "headstats.h"
#include "importance.h"
#include "model.h"
#include "test_util.h"

enum { NP = 3 };
static const int SRC[NP][6] = {{4, 5, 6, 7, 8, 9}, {10, 11, 4}, {7, 7, 5, 12}};
static const int REF[NP][5] = {{5, 6, 9, 8, 4}, {11, 12}, {4, 5, 6, 7}};
static const int SL[NP] = {6, 3, 4}, RL[NP] = {5, 2, 4};

/* sums over positions for one pass of a pair with experiment e */
static void ref_pass(const TfModel *m, const TfExperiment *e, int p, double *nll, double *right)
{
    const TfConfig *c = &m->cfg;
    int tgt[8], T = RL[p] + 1, S = SL[p], V = c->tgt_vocab;
    tgt[0] = cfg_start_id(c);
    memcpy(tgt + 1, REF[p], (size_t)RL[p] * sizeof(int));
    TfTrace tr;
    TfErr err;
    expect_true(trace_build(&tr, c, 1, 8, TRACE_RECORD, &err) == 0, "trace");
    tr.exp = *e;
    TfBatch b = {1, S, T, SRC[p], tgt, &S, &T};
    expect_true(tf_forward(m, &tr, &b, 0, &err) == 0, "forward: %s", err.msg);
    for (int t = 0; t < T; t++) {
        int want = t < RL[p] ? REF[p][t] : cfg_eos_id(c), best = 0;
        const float *z = tr.logits + (size_t)t * V;
        double sum = 0;
        for (int v = 0; v < V; v++) {
            sum += exp((double)z[v]);
            best = z[v] > z[best] ? v : best;
        }
        *nll += log(sum) - z[want];
        *right += best == want;
    }
    trace_free(&tr);
}

static void make_model(const TuVariant *k, TfModel *m)
{
    TfConfig c = tu_variant_config((TuSize){16, 2, 24, 2, 2, 14, 14, 16}, k);
    TfErr err;
    expect_true(model_init_random(m, &c, 3, &err) == 0, "%s: model: %s", k->name, err.msg);
}

static void test_against_reference(void **state)
{
    (void)state;
    for (int k = 0; k < TU_N_VARIANTS; k++) {
        TfModel m;
        TfErr err;
        make_model(&TU_VARIANTS[k], &m);
        const TfConfig *c = &m.cfg;
        TfImportance im;
        expect_true(tf_imp_init(&im, &m, &err) == 0, "init: %s", err.msg);
        int n = im.n_heads;
        expect_true(n == (c->n_enc + 2 * c->n_dec) * c->n_heads, "%d heads", n);
        for (int p = 0; p < NP; p++)
            expect_true(tf_imp_add(&im, SRC[p], SL[p], REF[p], RL[p], &err) == 0, "add: %s", err.msg);
        TfHeadImportance got[64];
        tf_imp_result(&im, got);
        /* the reference: the normal pass, then one whole pass per head */
        TfExperiment none;
        memset(&none, 0, sizeof none);
        double base_nll = 0, base_right = 0, P = 0;
        for (int p = 0; p < NP; p++) {
            ref_pass(&m, &none, p, &base_nll, &base_right);
            P += RL[p] + 1;
        }
        double worst = 0, spread = 0;
        printf("%s\n", TU_VARIANTS[k].name);
        for (int i = 0; i < n; i++) {
            TfExperiment e = none;
            e.n_ablate = 1;
            e.ablate[0] = got[i].ref;
            double nll = 0, right = 0;
            for (int p = 0; p < NP; p++)
                ref_pass(&m, &e, p, &nll, &right);
            double dn = (nll - base_nll) / P, da = (right - base_right) / P;
            double d = fmax(fabs(dn - got[i].delta_nll), fabs(da - got[i].delta_acc));
            worst = fmax(worst, d);
            spread = fmax(spread, fabs(dn));
            TfHeadRef want = tf_imp_head(c, i);
            expect_true(got[i].ref.kind == want.kind && got[i].ref.layer == want.layer &&
                            got[i].ref.head == want.head, "head %d", i);
            if (d > 1e-9)
                printf("  %s:%d:%d delta_nll %.9f want %.9f, delta_acc %.6f want %.6f\n",
                       tf_attn_kind_name(got[i].ref.kind), got[i].ref.layer, got[i].ref.head, got[i].delta_nll,
                       dn, got[i].delta_acc, da);
        }
        printf("  worst difference %.3g over %d heads (largest |delta_nll| %.4f)\n", worst, n, spread);
        expect_true(worst <= 1e-9, "within 1e-9 of the reference, got %.3g", worst);
        expect_true(spread > 1e-4, "some head matters (%.3g): the test can see a difference", spread);
        /* the same pairs on two threads */
        TfImpPair pairs[NP];
        for (int p = 0; p < NP; p++)
            pairs[p] = (TfImpPair){SRC[p], REF[p], SL[p], RL[p]};
        TfHeadImportance two[64];
        expect_true(tf_importance(&m, pairs, NP, 2, two, &err) == 0, "two threads: %s", err.msg);
        for (int i = 0; i < n; i++)
            expect_true(fabs(two[i].delta_nll - got[i].delta_nll) < 1e-12 &&
                            two[i].delta_acc == got[i].delta_acc, "head %d: %.12f vs %.12f", i, two[i].delta_nll,
                        got[i].delta_nll);
        tf_imp_free(&im);
        model_free(&m);
    }
}

/* begin/step pace a pair: left counts down to 0, and a step too many is refused */
static void test_steps(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    make_model(&TU_VARIANTS[0], &m);
    TfImportance im;
    expect_true(tf_imp_init(&im, &m, &err) == 0, "init");
    expect_true(tf_imp_step(&im, &err) < 0, "a step before any pair is refused");
    expect_true(tf_imp_begin(&im, SRC[0], SL[0], REF[0], RL[0], &err) == 0, "begin: %s", err.msg);
    int n = tf_imp_left(&im);
    expect_true(n == im.n_heads, "%d steps left, want %d", n, im.n_heads);
    for (int k = 0; k < n; k++)
        expect_true(tf_imp_step(&im, &err) == 0 && tf_imp_left(&im) == n - k - 1, "step %d", k);
    expect_true(tf_imp_step(&im, &err) < 0, "no step after the last");
    expect_true(im.pairs == 1 && im.positions == RL[0] + 1, "1 pair, %lld positions", im.positions);
    expect_true(tf_imp_begin(&im, SRC[0], SL[0], REF[0], 40, &err) < 0, "a reference longer than max_len refused");
    tf_imp_free(&im);
    model_free(&m);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_against_reference), cmocka_unit_test(test_steps));
}
