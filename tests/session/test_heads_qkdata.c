/* test_heads_qkdata.c - the Q/K map over a data set (heads_qkdata.h, in the
 * heads lab) on the bundled en2zh model and a three-pair TSV file:
 *   - gathering is paced: a budget of 0 gathers one pair a call;
 *   - the map holds the shown sentence's points first, then each pair's,
 *     teacher forced alone: its coordinates are tf_qkmap's over those rows
 *     gathered here pair by pair (tf_forward, tf_qk_rows), and each pair's
 *     weights are its own pass's;
 *   - another head of the same layer needs no new gathering, another layer
 *     does (the map is the sentence's alone until it is done); stop leaves
 *     the sentence alone; a missing file is a one-line error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heads_lab.h"
#include "model_open.h"
#include "text.h"
#include "test_util.h"

TU_SCRATCH_GROUP("qkdata")

#define MODEL "assets/models/en2zh.safetensors"

static const char *const PAIRS[3][2] = {
    {"i read books today", "我 今天 读 书"},
    {"you love china", "你 爱 中国"},
    {"the teacher likes tea", "老师 喜欢 茶"},
};

/* sentence (src, tgt text) through m into tr, teacher forced */
static void run_pair(const TfModel *m, TfTrace *tr, const char *src, const char *tgt)
{
    static int s[TF_MAX_LEN], t[TF_MAX_LEN];
    TfErr err;
    int S = tf_text_ids(m, 0, src, s, NULL, TF_MAX_LEN, NULL, &err);
    t[0] = cfg_start_id(&m->cfg);
    int T = 1 + tf_text_ids(m, 1, tgt, t + 1, NULL, TF_MAX_LEN - 1, NULL, &err);
    TfBatch b = {1, S, T, s, t, &S, &T};
    expect_true(S > 0 && T > 1 && tf_forward(m, tr, &b, 0, &err) == 0, "%s: %s", src, err.msg);
}

static int gather_all(HeadsLab *h, const TfModel *m, int kind, int layer)
{
    int calls = 0;
    while (hlab_qkd_run(h, m, kind, layer, 0) && calls < 1000)
        calls++;
    return calls + 1;
}

static void test_map_over_pairs(void **state)
{
    (void)state;
    TfModel m;
    TfErr err;
    assert_int_equal(tf_model_open(MODEL, &m, &err), 0);
    char tsv[512];
    path_in(tsv, sizeof tsv, "pairs.tsv");
    FILE *f = fopen(tsv, "w");
    assert_non_null(f);
    for (int i = 0; i < 3; i++)
        fprintf(f, "%s\t%s\n", PAIRS[i][0], PAIRS[i][1]);
    fprintf(f, "a line without a tab\n");
    fclose(f);
    HeadsLab *h = hlab_new();
    assert_non_null(h);
    expect_true(hlab_qkd_start(h, &m, tsv, 0) == 0 && h->qkd.pairs.n == 3, "3 pairs: %s", h->qkd.error);
    int calls = gather_all(h, &m, TF_ATTN_CROSS, 1);
    expect_true(calls == 3 && h->qkd.state == QKD_DONE, "one pair a call at budget 0: %d calls", calls);
    /* the sentence shown, and the rows the map must be made of, gathered here */
    TfTrace tr, one;
    assert_int_equal(trace_build(&tr, &m.cfg, 1, 8, TRACE_RECORD, &err), 0);
    assert_int_equal(trace_build(&one, &m.cfg, 1, 8, TRACE_RECORD, &err), 0);
    run_pair(&m, &tr, "i love china", "我 爱 中国");
    int dk = m.cfg.d_model / m.cfg.n_heads, cap = 256, nq = 0, nk = 0, head = 2;
    float *qr = malloc((size_t)cap * dk * sizeof *qr), *kr = malloc((size_t)cap * dk * sizeof *kr);
    int qpos[256], kpos[256], q0[4], k0[4];
    assert_true(qr && kr);
    q0[0] = k0[0] = 0;
    expect_true(tf_qk_rows(&tr, TF_ATTN_CROSS, 1, head, 0, qr, qpos, &nq, kr, kpos, &nk, cap, &err) == 0, "%s",
                err.msg);
    for (int i = 0; i < 3; i++) {
        q0[i + 1] = nq;
        k0[i + 1] = nk;
        run_pair(&m, &one, PAIRS[i][0], PAIRS[i][1]);
        expect_true(tf_qk_rows(&one, TF_ATTN_CROSS, 1, head, 0, qr, qpos, &nq, kr, kpos, &nk, cap, &err) == 0, "%s",
                    err.msg);
    }
    TfQkMap want;
    assert_int_equal(tf_qkmap(qr, nq, dk, kr, nk, dk, dk, &want, &err), 0);
    const HlabQk *q = hlab_qk(h, &tr, TF_ATTN_CROSS, 1, head, 0, 1);
    assert_non_null(q);
    expect_true(q->data && q->n_sent == 4 && q->map.nq == nq && q->map.nk == nk,
                "the sentence and 3 pairs: %d sentences, %d queries (want %d), %d keys (want %d)", q->n_sent,
                q->map.nq, nq, q->map.nk, nk);
    double worst = 0;
    for (int i = 0; i < 2 * nq && i < 2 * q->map.nq; i++)
        worst = fmax(worst, fabs(q->map.q[i] - want.q[i]));
    for (int i = 0; i < 2 * nk && i < 2 * q->map.nk; i++)
        worst = fmax(worst, fabs(q->map.k[i] - want.k[i]));
    expect_true(worst == 0, "the map is tf_qkmap's over the rows pair by pair: worst %g", worst);
    for (int i = 0; i < 4 && i < q->n_sent; i++)
        expect_true(q->sent[i].q0 == q0[i] && q->sent[i].k0 == k0[i] && q->qsent[q0[i]] == i && q->ksent[k0[i]] == i,
                    "sentence %d starts at query %d, key %d", i, q0[i], k0[i]);
    expect_true(!q->sent[0].text && q->sent[2].text && strstr(q->sent[2].text, "you love china") &&
                    strstr(q->sent[2].text, "中国"),
                "a pair's text names it: %s", q->sent[2].text ? q->sent[2].text : "(none)");
    /* pair 2's weights are its own pass's */
    run_pair(&m, &one, PAIRS[1][0], PAIRS[1][1]);
    const QkdSent *s2 = &q->sent[2];
    const float *w = one.dec[1].ca.weights + (size_t)head * one.T * one.S;
    int same = 1;
    for (int r = 0; r < s2->nq; r++)
        for (int c = 0; c < s2->nk; c++)
            same &= q->wall[s2->w + (size_t)r * s2->nk + c] == w[(size_t)r * one.S + c];
    expect_true(same, "pair 2's weights are its pass's");
    /* another head: no new gathering; another layer: gathered again */
    int next = h->qkd.next;
    expect_true(hlab_qkd_run(h, &m, TF_ATTN_CROSS, 1, 0) == 0 && h->qkd.next == next, "head 4 gathers nothing");
    q = hlab_qk(h, &tr, TF_ATTN_CROSS, 1, 3, 0, 1);
    expect_true(q && q->data && q->n_sent == 4, "head 4 over the data set at once");
    expect_true(hlab_qkd_run(h, &m, TF_ATTN_CROSS, 0, 0) == 1, "layer 1 is gathered again");
    q = hlab_qk(h, &tr, TF_ATTN_CROSS, 0, 3, 0, 1);
    expect_true(q && !q->data && q->n_sent == 1, "until then its map is the sentence's alone");
    gather_all(h, &m, TF_ATTN_CROSS, 0);
    q = hlab_qk(h, &tr, TF_ATTN_CROSS, 0, 3, 0, 1);
    expect_true(q && q->data && q->n_sent == 4, "then over the data set");
    hlab_qkd_stop(h);
    q = hlab_qk(h, &tr, TF_ATTN_CROSS, 0, 3, 0, 1);
    expect_true(q && !q->data && q->n_sent == 1 && q->map.nq == tr.tgt_len[0], "stopped: the sentence alone");
    char missing[600];
    snprintf(missing, sizeof missing, "%s.none", tsv);
    expect_true(hlab_qkd_start(h, &m, missing, 0) == -1 && strstr(h->qkd.error, "cannot open") &&
                    !strchr(h->qkd.error, '\n'),
                "a missing file: %s", h->qkd.error);
    tf_qkmap_free(&want);
    free(qr);
    free(kr);
    trace_free(&tr);
    trace_free(&one);
    hlab_free(h);
    model_free(&m);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_map_over_pairs));
}
