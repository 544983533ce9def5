/* test_link.c - view links (app/session/link.c): the fragment of a shared
 * address read into a SceneLink, written back, and every bad field refused
 * with a line that names it. */
#include "test_util.h"

#include "link.h"

static void test_the_issue_link(void **state)
{
    (void)state;
    SceneLink l;
    TfErr err = {{0}};
    const char *frag = "#src=i%20love%20china&tgt=%E6%88%91+%E7%88%B1&stage=enc.self.weights&layer=0&head=2"
                       "&lang=zh&lesson=attention&step=3&exp=no-scale,ablate:cross:1:3,hide:2";
    expect_true(link_parse(frag, &l, &err) == 0, "%s", err.msg);
    expect_true(!strcmp(l.src, "i love china"), "src «%s»", l.src);
    expect_true(!strcmp(l.tgt, "我 爱"), "tgt «%s»", l.tgt);
    expect_true(!strcmp(l.stage, "enc.self.weights") && l.layer == 0 && l.head == 2,
                "stage %s layer %d head %d", l.stage, l.layer, l.head);
    expect_true(l.lang == 1 && !strcmp(l.lesson, "attention") && l.step == 3, "lang %d lesson %s step %d",
                l.lang, l.lesson, l.step);
    expect_true(l.no_scale && !l.no_pe && l.n_ablate == 1 && !strcmp(l.ablate[0], "cross:1:3") &&
                    l.n_hide == 1 && l.hide[0] == 2,
                "no_scale %d ablate %d «%s» hide %d", l.no_scale, l.n_ablate, l.ablate[0], l.n_hide);
    unsigned want = LINK_SRC | LINK_TGT | LINK_STAGE | LINK_LAYER | LINK_HEAD | LINK_LANG | LINK_LESSON |
                    LINK_STEP | LINK_EXP;
    expect_true(l.has == want, "has %#x, want %#x", l.has, want);
}

static void test_only_what_is_given(void **state)
{
    (void)state;
    SceneLink l;
    TfErr err = {{0}};
    expect_true(link_parse("", &l, &err) == 0 && l.has == 0, "empty: has %#x", l.has);
    expect_true(link_parse("#", &l, &err) == 0 && l.has == 0, "'#': has %#x", l.has);
    expect_true(link_parse("head=-1&&view=heads", &l, &err) == 0, "%s", err.msg);
    expect_true(l.has == (LINK_HEAD | LINK_VIEW) && l.head == -1 && !strcmp(l.view, "heads"),
                "has %#x head %d view %s", l.has, l.head, l.view);
    expect_true(link_parse("src=a%7Cb|c&src=later", &l, &err) == 0 && !strcmp(l.src, "later"),
                "the last src wins: «%s»", l.src);
    expect_true(link_parse("src=a%7Cb|c", &l, &err) == 0 && !strcmp(l.src, "a|b|c"), "src «%s»", l.src);
}

static void test_bad_fields_are_named(void **state)
{
    (void)state;
    static const TuPair cases[] = {
        {"stage=enc.self.weight", "unknown stage 'enc.self.weight'"},
        {"layer=x", "layer must be"},
        {"layer=64", "layer must be"},
        {"head=-2", "head must be"},
        {"lang=fr", "lang must be en or zh"},
        {"step=0", "step must be a step number from 1"},
        {"lesson=../x", "lesson must be"},
        {"colour=red", "unknown field 'colour'"},
        {"src", "src has no value"},
        {"=3", "a field without a name"},
        {"src=a%2", "src: '%' must be followed"},
        {"src=a%zz", "src: '%' must be followed"},
        {"src=a%00b", "control characters"},
        {"exp=no-scale,shuffle", "unknown experiment 'shuffle'"},
        {"exp=ablate:enc:1", "unknown experiment 'ablate:enc:1'"},
        {"exp=ablate:mid:0:0", "unknown experiment"},
        {"exp=hide:-1", "unknown experiment 'hide:-1'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        SceneLink l;
        TfErr err = {{0}};
        int rc = link_parse(cases[k].in, &l, &err);
        expect_true(rc < 0 && strstr(err.msg, cases[k].want) && !strchr(err.msg, '\n') && l.has == 0,
                    "«%s»: rc %d, message «%s», want «%s»", cases[k].in, rc, err.msg, cases[k].want);
    }
    /* a value longer than the field */
    static char big[LINK_TEXT_MAX + 16];
    memcpy(big, "src=", 4);
    memset(big + 4, 'a', LINK_TEXT_MAX + 4);
    SceneLink l;
    TfErr err = {{0}};
    expect_true(link_parse(big, &l, &err) < 0 && strstr(err.msg, "src is longer than"), "«%s»", err.msg);
}

static void test_written_links_read_back(void **state)
{
    (void)state;
    SceneLink a, b;
    TfErr err = {{0}};
    expect_true(link_parse("src=i%20love%20china%20%26%20you%3D%2B&tgt=我%20爱&stage=dec.cross.weights"
                           "&layer=1&head=3&lang=en&lesson=masks&step=2&view=lines&exp=no-pe,no-causal,"
                           "ablate:dec:0:1,hide:0",
                           &a, &err) == 0,
                "%s", err.msg);
    char buf[4096];
    int n = link_format(&a, buf, sizeof buf);
    expect_true(n > 0 && (size_t)n == strlen(buf), "length %d for «%s»", n, buf);
    expect_true(strstr(buf, "src=i%20love%20china%20%26%20you%3D%2B") != NULL, "«%s»", buf);
    expect_true(link_parse(buf, &b, &err) == 0, "%s in «%s»", err.msg, buf);
    expect_true(memcmp(&a, &b, sizeof a) == 0, "«%s» read back differently (src «%s», exp %d/%d)", buf, b.src,
                b.n_ablate, b.n_hide);
    expect_true(link_format(&a, buf, 20) == -1, "a 20-byte buffer took «%s»", buf);
}

static void test_experiment_checked_against_the_model(void **state)
{
    (void)state;
    TfConfig cfg = tu_config((TuSize){.n_heads = 2, .n_enc = 2, .n_dec = 2, .max_len = 16});
    SceneLink l;
    TfExperiment e;
    TfErr err = {{0}};
    expect_true(link_parse("exp=no-scale,ablate:cross:1:1,hide:3", &l, &err) == 0, "%s", err.msg);
    expect_true(link_experiment(&l, &cfg, 5, &e, &err) == 0, "%s", err.msg);
    expect_true(e.no_scale && e.n_ablate == 1 && tf_exp_ablated(&e, TF_ATTN_CROSS, 1, 1) && tf_exp_hidden(&e, 3),
                "no_scale %d ablate %d hidden %d", e.no_scale, e.n_ablate, tf_exp_hidden(&e, 3));
    expect_true(link_parse("exp=ablate:enc:2:0", &l, &err) == 0, "%s", err.msg);
    expect_true(link_experiment(&l, &cfg, 0, &e, &err) < 0 && strchr(err.msg, '2'), "layer 2 of 2: «%s»", err.msg);
    expect_true(link_parse("exp=hide:4", &l, &err) == 0, "%s", err.msg);
    expect_true(link_experiment(&l, &cfg, 4, &e, &err) < 0, "position 4 of a 4-token source taken");
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_the_issue_link), cmocka_unit_test(test_only_what_is_given),
           cmocka_unit_test(test_bad_fields_are_named), cmocka_unit_test(test_written_links_read_back),
           cmocka_unit_test(test_experiment_checked_against_the_model));
}
