/* test_linebreak_web.c - the browser build's line breaking
 * (app/platform/web/linebreak_web.c, a UAX #14 subset standing in for
 * libunibreak there) held against libunibreak itself: a table of cases, and
 * every line of every lesson, where it may miss a few of libunibreak's break
 * opportunities but must almost never add one. */
#include "test_util.h"

/* the stand-in under other names, beside the real library (whose header,
 * included first, keeps the real names declared) */
#include <linebreak.h>
#define set_linebreaks_utf8 web_set_linebreaks_utf8
#define init_linebreak web_init_linebreak
#include "../../app/platform/web/linebreak_web.c"
#undef set_linebreaks_utf8
#undef init_linebreak

#include <glob.h>

/* "|" marks where a line may end (as libunibreak says too): the text
 * without the bars, and the breaks */
static void check_case(const char *marked)
{
    char text[256], want[256], got[256], real[256];
    size_t n = 0;
    memset(want, 0, sizeof want);
    for (const char *p = marked; *p; p++) {
        if (*p == '|')
            want[n - 1] = 1;
        else
            text[n++] = *p;
    }
    text[n] = 0;
    web_set_linebreaks_utf8((const utf8_t *)text, n, NULL, got);
    set_linebreaks_utf8((const utf8_t *)text, n, NULL, real);
    for (size_t i = 0; i + 1 < n; i++)
        expect_true((real[i] == LINEBREAK_ALLOWBREAK) == (want[i] == 1), "«%s»: libunibreak differs after byte %zu",
                    marked, i);
    char shown[512];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        shown[k++] = text[i];
        if (i + 1 < n && got[i] == LINEBREAK_ALLOWBREAK)
            shown[k++] = '|';
    }
    shown[k] = 0;
    for (size_t i = 0; i + 1 < n; i++)
        expect_true((got[i] == LINEBREAK_ALLOWBREAK) == (want[i] == 1), "«%s» broke as «%s»", marked, shown);
    expect_true(got[n - 1] == LINEBREAK_MUSTBREAK, "«%s»: the end must break", marked);
}

static void test_cases(void **state)
{
    (void)state;
    init_linebreak();
    static const char *const CASES[] = {
        "the |model |reads",
        "self-|attention |heads",
        "d_k |= |d_model / |h",         /* no break before a slash */
        "press |[ and ] |to |step",     /* nor after an opening bracket, nor before a closing one */
        "我|今|天|读|书。",              /* between ideographs, not before 。 */
        "（注|意）|力",                   /* not after （, not before ） */
        "“今|天”是",                      /* not next to a quotation mark */
        "0.5 |× |x",
        "softmax(QKᵀ/|√d_k |+ |M)",      /* after a slash (SY), unless a digit follows */
        "and/|or |1/2 |a /|b",
        "min(step^|−0.5, |2−3 |(a)−b", /* before a minus sign (PR) after a letter only */
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
        check_case(CASES[i]);
}

static void test_lessons_against_libunibreak(void **state)
{
    (void)state;
    glob_t g;
    expect_true(glob("lessons/*/*.txt", 0, NULL, &g) == 0 && g.gl_pathc > 10, "no lessons found from %s", ".");
    init_linebreak();
    long uni = 0, both = 0, extra = 0, missed = 0;
    char line[16384], a[16384], b[16384], first[200] = "";
    for (size_t f = 0; f < g.gl_pathc; f++) {
        FILE *fp = fopen(g.gl_pathv[f], "r");
        expect_true(fp != NULL, "cannot read %s", g.gl_pathv[f]);
        while (fgets(line, sizeof line, fp)) {
            size_t n = strcspn(line, "\n");
            line[n] = 0;
            if (!n)
                continue;
            set_linebreaks_utf8((const utf8_t *)line, n, NULL, a);
            web_set_linebreaks_utf8((const utf8_t *)line, n, NULL, b);
            for (size_t i = 0; i + 1 < n; i++) {
                int u = a[i] == LINEBREAK_ALLOWBREAK, w = b[i] == LINEBREAK_ALLOWBREAK;
                uni += u;
                both += u && w;
                missed += u && !w;
                if (w && !u && !extra++)
                    snprintf(first, sizeof first, "%s: «%.*s|%.20s»", g.gl_pathv[f], (int)(i + 1 < 30 ? i + 1 : 30),
                             line + (i + 1 < 30 ? 0 : i + 1 - 30), line + i + 1);
            }
        }
        fclose(fp);
    }
    globfree(&g);
    printf("  libunibreak: %ld break opportunities; the stand-in finds %ld of them, misses %ld, adds %ld%s%s\n", uni,
           both, missed, extra, extra ? "; the first added: " : "", first);
    expect_true(uni > 10000, "the lessons hold %ld break opportunities", uni);
    expect_true(extra * 1000 <= uni, "at most 0.1%% added breaks: %ld of %ld", extra, uni);
    expect_true(missed * 100 <= uni, "at most 1%% missed breaks: %ld of %ld", missed, uni);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_cases), cmocka_unit_test(test_lessons_against_libunibreak));
}
