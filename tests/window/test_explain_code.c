/* test_explain_code.c - the explanation panel's "code" tab
 * (app/window/explain/explain_code.c) and the words of every stage
 * (app/window/explain/expl_stage.c): every stage has a title, a formula, a text and
 * its few lines of PyTorch, and they are the lines of that stage (the scores divide by
 * √d_k, decoder self-attention's mask is triu, the weights are a softmax
 * of scores + mask, post-LN vs pre-LN Add & Norm); the panel draws both
 * tabs on every stage and on the cost view without a crash; under the
 * experiment no-residual the Add and Norm stages' formulas leave x out. */
#include <string.h>

#include "app.h"
#include "expl_stage.h"
#include "panels.h"
#include "test_app_util.h"
#include "test_util.h"

static char g_model[96];
TU_FIXTURE(g_model, "explain-code", 1280, 800)

static const TuPair MUST[] = {
    {"enc.self.scores", "/ math.sqrt(d_k)"},
    {"dec.self.mask", "triu"},
    {"enc.self.mask", "src_len"},
    {"dec.cross.weights", "softmax(scores + mask"},
    {"dec.cross.q", "memory"},
    {"enc.ffn.hidden", "relu"},
    {"enc.norm1", "LayerNorm(x + Sublayer(x))"},
    {"src.embed", "math.sqrt(d_model)"},
    {"pos.enc", "torch.sin"},
    {"out.probs", "softmax(logits"},
    {"dec.self.concat", "reshape"},
    {"enc.self.out", "W_o"},
};

static void test_every_stage_has_code(void **state)
{
    (void)state;
    for (int st = 0; st < ST_COUNT; st++) {
        const char *c = explain_code((StageId)st, stage_info((StageId)st)->flags & SF_PRE_LN ? 1 : 0);
        expect_true(c && strlen(c) > 10, "stage %s has code", stage_info((StageId)st)->name);
    }
    for (size_t i = 0; i < sizeof MUST / sizeof *MUST; i++) {
        const char *c = explain_code((StageId)stage_find(MUST[i].in), 0);
        expect_true(c && strstr(c, MUST[i].want), "%s's code has '%s', got:\n%s", MUST[i].in, MUST[i].want, c);
    }
    const char *pre = explain_code(ST_ENC_ADD1, 1);
    expect_true(strstr(pre, "norm(x)") != NULL, "pre-LN Add reads norm(x): %s", pre);
}

/* The table has an entry for every StageId, with every field the panel
 * draws, and pre-LN variants only where the stage has one. */
static void test_every_stage_has_words(void **state)
{
    (void)state;
    for (int st = 0; st < ST_COUNT; st++) {
        const StageText *t = expl_stage((StageId)st);
        const char *name = stage_info((StageId)st)->name;
        expect_true(t->title[0] && t->formula[0] && t->text[0] && t->code && t->code[0],
                    "stage %s has a title, formula, text and code", name);
        StageKind k = stage_info((StageId)st)->kind;
        int pre_ok = k == SK_ADD || k == SK_NORM;
        expect_true(pre_ok || (!t->formula_pre && !t->text_pre && !t->code_pre),
                    "stage %s has no pre-LN variant", name);
    }
    const StageText *none = expl_stage(ST_COUNT);
    expect_true(none->title[0] == 0 && none->code == NULL, "an id out of range has empty words");
}

static void test_panel_tabs_draw(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(g_model, "t5 t6 t7", NULL, NULL);
    tu_open(&a, &o, 1);
    for (int tab = 0; tab < 2; tab++) {
        a.expl.tab = tab;
        for (int i = 0; i < a.ses.n_walk; i += 3) {
            app_goto(&a, a.ses.walk[i].stage, a.ses.walk[i].layer);
            tu_frame(&a);
        }
        a.view = VIEW_COST;
        tu_frame(&a);
        a.view = VIEW_AUTO;
    }
    expect_true(a.expl.tab == 1, "the tab stays as chosen");
    app_free(&a);
}

/* The explanation's formula of enc.add1 and enc.norm1 with and without
 * no-residual, as one frame draws it. */
static int formula_drawn(App *a, StageId st, const char *want)
{
    app_goto(a, st, 0);
    a->expl.tab = 0;
    tu_drawn_frame(a, tu_ren);
    ren_end(tu_ren);
    return strstr(tu_drawn.text, want) != NULL;
}

static void test_no_residual_formula(void **state)
{
    (void)state;
    static App a;
    AppOpts o = tu_opts(g_model, "t5 t6 t7", NULL, NULL);
    tu_open(&a, &o, 1);
    expect_true(formula_drawn(&a, ST_ENC_ADD1, "x + Sublayer(x)") && !formula_drawn(&a, ST_ENC_ADD1, "x is not added"),
                "the paper's residual sum without an experiment");
    TfExperiment e = {0};
    e.no_residual = 1;
    app_set_exp(&a, &e);
    app_compute_all(&a);
    /* the formula's own words (the view's titles say "Sublayer(x) alone" too) */
    expect_true(formula_drawn(&a, ST_ENC_ADD1, "x is not added"), "no-residual: the add stage's formula leaves x out:\n%s",
                tu_drawn.text);
    expect_true(formula_drawn(&a, ST_ENC_NORM1, "LN(Sublayer(x))"), "no-residual: the norm is LN(Sublayer(x))");
    app_free(&a);
}

int main(void)
{
    TU_RUN(setup, teardown, cmocka_unit_test(test_every_stage_has_code), cmocka_unit_test(test_every_stage_has_words),
           cmocka_unit_test(test_panel_tabs_draw), cmocka_unit_test(test_no_residual_formula));
}
