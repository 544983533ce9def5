/* test_headstats.c - head metrics against values worked out by hand on
 * crafted weight matrices, labels for clear patterns, and the metrics of a
 * real pass computed again from the trace's weights. */
#include <math.h>

#include "headstats.h"
#include "model.h"
#include "test_util.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void test_hand_computed(void **state)
{
    (void)state;
    /* 3 x 3: row 0 one-hot on 0; row 1 half/half on 0,1; row 2 one-hot on 1 */
    const float w[9] = {1, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0};
    TfHeadMetrics m;
    tf_metrics_of(w, 3, 3, 3, &m);
    expect_true(m.rows == 3, "rows %d", m.rows);
    expect_true(NEAR(m.entropy, log(2.0) / 3), "entropy %.9f, want ln2/3", m.entropy);
    expect_true(NEAR(m.max_weight, 2.5 / 3), "max weight %.9f", m.max_weight);
    /* argmax: row 0 -> 0 (offset 0), row 1 -> 0 (the first of equals, offset -1),
     * row 2 -> 1 (offset -1): -1 twice */
    expect_true(m.offset == -1 && NEAR(m.offset_share, 2.0 / 3), "offset %d share %.3f", m.offset,
                m.offset_share);
    expect_true(NEAR(m.first_share, 1.5 / 3), "first share %.9f", m.first_share);
    expect_true(NEAR(m.monotonic, 1.0), "monotonic %.3f (0, 0, 1)", m.monotonic);
    /* a row with every key hidden is left out */
    const float z[6] = {0, 0, 0, 0.25f, 0.25f, 0.5f};
    tf_metrics_of(z, 2, 3, 3, &m);
    expect_true(m.rows == 1 && NEAR(m.max_weight, 0.5) && m.offset == 1, "rows %d offset %d", m.rows, m.offset);
}

typedef struct LabelCase {
    const char *want;
    TfAttnKind kind;
    int pattern; /* 0 previous token, 1 diagonal, 2 uniform, 3 first key, 4 monotone, 5 reversed */
} LabelCase;

static void fill(float *w, int n, int pattern)
{
    memset(w, 0, (size_t)n * n * sizeof *w);
    for (int i = 0; i < n; i++) {
        float *r = w + (size_t)i * n;
        switch (pattern) {
        case 0: r[i > 0 ? i - 1 : 0] = 1; break;
        case 1: r[i] = 1; break;
        case 2: for (int j = 0; j < n; j++) r[j] = 1.0f / n; break;
        case 3: r[0] = 0.9f; r[i] += 0.1f; break;
        case 4: r[i] = 0.8f; r[(i + 1) % n] += 0.2f; break;
        case 5: r[n - 1 - i] = 1; break;
        }
    }
}

static void test_labels(void **state)
{
    (void)state;
    static const LabelCase cases[] = {
        {"previous token", TF_ATTN_DEC, 0}, {"diagonal", TF_ATTN_ENC, 1},   {"broad", TF_ATTN_ENC, 2},
        {"sink", TF_ATTN_ENC, 3},           {"aligns with the source", TF_ATTN_CROSS, 4},
        {"", TF_ATTN_CROSS, 5},
    };
    float w[36];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TfHeadMetrics m;
        fill(w, 6, cases[i].pattern);
        tf_metrics_of(w, 6, 6, 6, &m);
        const char *got = tf_head_label(&m, cases[i].kind);
        expect_true(strcmp(got, cases[i].want) == 0, "pattern %d: '%s', want '%s'", cases[i].pattern, got,
                    cases[i].want);
    }
}

/* On a real padded pass the metrics only read real rows and keys. */
static void test_trace_metrics_skip_padding(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    tu_model(&m, 5, 16, 2, 16, 1, 1, 12, 12, 16);
    const TfConfig c = m.cfg;
    int src[10] = {4, 5, 6, 7, 8, 9, 10, 0, 0, 0}, tgt[8] = {1, 5, 6, 7, 1, 8, 0, 0};
    int sl[2] = {5, 2}, tl[2] = {4, 2};
    TfTrace tr;
    expect_true(trace_build(&tr, &c, 2, 8, TRACE_RECORD, &err) == 0, "trace");
    TfBatch b = {2, 5, 4, src, tgt, sl, tl};
    expect_true(tf_forward(&m, &tr, &b, 0, &err) == 0, "forward");
    TfHeadMetrics h;
    expect_true(tf_head_metrics(&tr, TF_ATTN_CROSS, 0, 1, 1, &h, &err) == 0, "metrics: %s", err.msg);
    expect_true(h.rows == 2 && h.keys == 2, "sentence 2: %d rows x %d keys", h.rows, h.keys);
    expect_true(h.entropy >= 0 && h.entropy <= log(2.0) + 1e-6, "entropy %.4f within [0, ln 2]", h.entropy);
    expect_true(tf_head_metrics(&tr, TF_ATTN_ENC, 1, 0, 0, &h, &err) < 0, "layer 2 of 1 refused");
    trace_free(&tr);
    model_free(&m);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_hand_computed), cmocka_unit_test(test_labels),
           cmocka_unit_test(test_trace_metrics_skip_padding));
}
