/* test_view_marian.c - the views tell the truth about a MarianMT model
 * (tests/fixtures/marian/spm_model: SiLU, positions in halves): the FFN
 * view counts the small negatives of SiLU from the trace (no "ReLU
 * zeros"), the PE view draws the model's own halves table and rotates the
 * pair (i, d/2 + i), the output view finds a token by its text (the ▁
 * word-start piece too) with its rank over the whole vocabulary, and the
 * explanation names SiLU and the paper's ReLU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "explain_model.h"
#include "ops.h"
#include "test_app_util.h"
#include "test_util.h"
#include "decode_host.h"
#include "view_decode.h"

#define SPMDIR "tests/fixtures/marian/spm_model"

TU_RENDERER(1280, 800)

static void open_at(App *a, const char *stage, int layer, const char *view)
{
    AppOpts o = tu_opts(SPMDIR, "the cat sees a bird.", NULL, view);
    o.stage = stage;
    o.layer = layer;
    tu_open(a, &o, 100);
    a->anim_start = 0;
}

static void test_ffn_counts_silu_negatives(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "enc.ffn.hidden", 0, NULL);
    expect_true(a.ses.model.cfg.act == TF_ACT_SILU, "the fixture is SiLU");
    int F = a.ses.trace.cfg.d_ff, neg_all = 0;
    for (int tok = 0; tok < 3; tok++) {
        a.sel = (Selection){1, tok};
        a.ui.in = (UiInput){0};
        tu_view_frame(&a, tu_ren, VIEW_FFN, (Rect){300, 70, 680, 640});
        ren_end(tu_ren);
        const float *row = a.ses.trace.enc[0].ffn_hidden + (size_t)tok * F;
        int neg = 0, zeros = 0;
        float min = INFINITY;
        for (int c = 0; c < F; c++) {
            neg += row[c] < 0;
            zeros += row[c] == 0;
            min = fminf(min, row[c]);
        }
        neg_all += neg;
        expect_true(zeros == 0 && min > -0.2785f - 1e-4f, "SiLU: no zeros, nothing below -0.2785 (%g)", min);
        char label[64], want[400];
        tf_view_label(&a.ses.trace, &a.ses.model, &(TfView){.row_kind = LBL_SRC}, 0, tok, label, sizeof label);
        ui_token(label, label, sizeof label);
        ffn_smooth_sentence(want, sizeof want, TF_ACT_SILU, neg, F, min, label);
        const char *said = view_ffn_said(a.vstate[VIEW_FFN]);
        expect_true(!strcmp(said, want), "\"%s\", got \"%s\"", want, said);
        expect_true(strstr(said, "SiLU") && !strstr(said, "exactly 0"), "names SiLU: %s", said);
    }
    expect_true(neg_all > 0, "the trace has small negatives to show");
    const char *t = "", *f = "", *x = "";
    expect_true(explain_model(&a, ST_ENC_FFN_HIDDEN, &t, &f, &x) && strstr(x, "SiLU") && strstr(x, "ReLU") &&
                    strstr(f, "σ"), "the explanation names SiLU and the paper's ReLU: %s", x);
    expect_true(!strcmp(explain_step_label(&a, ST_ENC_FFN_HIDDEN, "ReLU(xW₁+b₁)"), "SiLU(xW₁+b₁)"), "step strip");
    expect_true(!strcmp(explain_view_label(&a, VIEW_FFN, "ReLU"), "SiLU"), "tab");
    app_free(&a);
}

static void test_pe_halves(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "pos.enc", 0, NULL);
    int C = a.ses.model.cfg.d_model, rows = 20;
    expect_true(a.ses.model.cfg.pe_layout == TF_PE_HALVES, "halves");
    float *want = malloc((size_t)rows * C * sizeof *want), *got = malloc((size_t)rows * C * sizeof *got);
    pe_table_halves(want, rows, C);
    memcpy(got, a.ses.pe, (size_t)rows * C * sizeof *got); /* what the PE view draws */
    double worst = 0;
    for (int i = 0; i < rows * C; i++)
        worst = fmax(worst, fabs(got[i] - want[i]));
    expect_true(worst < 1e-6, "the view's table is the model's halves table (%.2g)", worst);
    expect_true(fabsf(got[(size_t)3 * C + 0] - sinf(3.0f)) < 1e-6f && fabsf(got[(size_t)3 * C + C / 2] - cosf(3.0f)) < 1e-6f,
                "sin(pos) in channel 0, cos(pos) in channel d/2");
    float R[2][2], out[2];
    int i = 2, pos = 1, k = 3;
    expect_true(pe_rotate_cols(got, rows, C, i, C / 2 + i, i, pos, k, R, out) == 0, "rotates pair (i, d/2+i)");
    expect_true(fabsf(out[0] - got[(size_t)(pos + k) * C + i]) < 1e-5f &&
                    fabsf(out[1] - got[(size_t)(pos + k) * C + C / 2 + i]) < 1e-5f,
                "R(kω)·PE(pos) = PE(pos+k) in the halves layout");
    a.ui.in = (UiInput){0};
    tu_view_frame(&a, tu_ren, VIEW_PE, (Rect){300, 70, 680, 640});
    ren_end(tu_ren);
    const char *t = "", *f = "", *x = "";
    expect_true(explain_model(&a, ST_POS_ENC, &t, &f, &x) && strstr(x, "halves") && strstr(f, "d/2"),
                "the explanation says halves: %s", x);
    free(want);
    free(got);
    app_free(&a);
}

static void test_output_finds_a_token(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "out.probs", 0, "output");
    char *find = view_output_find_text(a.vstate[VIEW_OUTPUT]);
    snprintf(find, SES_TEXT_MAX, "cat"); /* the piece is "▁cat" */
    a.ui.in = (UiInput){0};
    tu_view_frame(&a, tu_ren, VIEW_OUTPUT, (Rect){300, 70, 680, 640});
    ren_end(tu_ren);
    int rank;
    float p;
    int id = view_output_found(a.vstate[VIEW_OUTPUT], 0, &rank, &p);
    expect_true(id == vocab_find(&a.ses.model.tgt_vocab, "\xe2\x96\x81" "cat", 6) && id >= 0, "found ▁cat (%d)", id);
    int V = a.ses.model.cfg.tgt_vocab, want = 1;
    const float *row = a.ses.trace.probs;
    for (int v = 0; v < V; v++)
        want += row[v] > row[id];
    expect_true(rank == want && p == row[id], "rank %d (want %d), p %g", rank, want, p);
    snprintf(find, SES_TEXT_MAX, "no-such-token");
    tu_view_frame(&a, tu_ren, VIEW_OUTPUT, (Rect){300, 70, 680, 640});
    ren_end(tu_ren);
    expect_true(view_output_found(a.vstate[VIEW_OUTPUT], 0, &rank, &p) < 0, "nothing found");
    app_free(&a);
}

/* The decode view starts both sides with the model's decoder start
 * (<pad>, not our <bos> id 1, which is <unk> here) and ends at its </s>. */
static void test_decode_view_ids(void **state)
{
    (void)state;
    static App a;
    open_at(&a, "src.tokens", 0, "decode");
    a.ui.in = (UiInput){0};
    tu_view_frame(&a, tu_ren, VIEW_DECODE, (Rect){300, 70, 680, 640});
    ren_end(tu_ren);
    DecodeLab *L = dhost_lab(&a);
    expect_true(dlab_gen_input(L, 0) == 137 && L->tf_in[0] == 137, "start: %d, %d", dlab_gen_input(L, 0), L->tf_in[0]);
    expect_true(L->gen.n > 0 && L->gen.ids[L->gen.n - 1] == 0 && L->eos_id == 0, "ends with </s> (id 0)");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_ffn_counts_silu_negatives), cmocka_unit_test(test_pe_halves),
           cmocka_unit_test(test_output_finds_a_token), cmocka_unit_test(test_decode_view_ids));
}
