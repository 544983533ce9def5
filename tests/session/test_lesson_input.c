/* test_lesson_input.c - lesson files as careless or hostile users make
 * them: a byte order mark, old Mac line ends, a FIFO, a file name of twenty
 * digits, a megabyte of directives, hundreds of files, a folder path too
 * long to use. Each parses, or fails with "FILE[:LINE]: reason". */
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "lesson.h"
#include "test_util.h"

TU_SCRATCH_GROUP("lesson-input")

static const char LESSON[] = "@title T\n@summary S\n@step One\n@stage enc.input\nFirst.\n"
                             "@step Two\n@layer 2\nSecond.\n";

/* LESSON with "\n" replaced by nl, after an optional prefix. */
static char *variant(const char *prefix, const char *nl)
{
    char *out = malloc(strlen(prefix) + 2 * sizeof LESSON + 1);
    size_t at = strlen(prefix), nl_len = strlen(nl);
    memcpy(out, prefix, at);
    for (const char *c = LESSON; *c; c++) {
        if (*c == '\n') {
            memcpy(out + at, nl, nl_len);
            at += nl_len;
        } else {
            out[at++] = *c;
        }
    }
    out[at] = 0;
    return out;
}

static void test_bom_and_line_ends(void **state)
{
    (void)state;
    static const struct {
        const char *what, *prefix, *nl;
    } cases[] = {
        {"LF", "", "\n"},
        {"CRLF", "", "\r\n"},
        {"CR only", "", "\r"},
        {"BOM + LF", "\xEF\xBB\xBF", "\n"},
        {"BOM + CRLF", "\xEF\xBB\xBF", "\r\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = variant(cases[i].prefix, cases[i].nl);
        Lesson l;
        TfErr err = {{0}};
        int rc = lesson_parse(&l, t, strlen(t), "x.txt", &err);
        expect_true(rc == 0, "%s: %s", cases[i].what, err.msg);
        if (rc == 0) {
            expect_true(l.n_steps == 2 && strcmp(l.title, "T") == 0 &&
                            strcmp(l.steps[1].text, "Second.") == 0 && l.steps[1].line == 6,
                        "%s: %d steps, title '%s'", cases[i].what, l.n_steps, l.title);
            lesson_free(&l);
        }
        free(t);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_names_and_kinds_of_file(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/99999999999999999999-x.txt", g_dir);
    write_file(path, LESSON);
    Lesson l;
    TfErr err = {{0}};
    expect_true(lesson_load(&l, path, &err) == 0, "twenty digits: %s", err.msg);
    expect_true(strcmp(l.id, "x") == 0 && l.order > 0, "id '%s', order %d", l.id, l.order);
    lesson_free(&l);
    snprintf(path, sizeof path, "%s/01-pipe.txt", g_dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_true(lesson_load(&l, path, &err) < 0 && strstr(err.msg, "FIFO") && strstr(err.msg, path),
                "a FIFO is refused without blocking: %s", err.msg);
    unlink(path);
}

typedef struct Text {
    const char *t;
    size_t n;
} Text;

static double parse_seconds(const void *arg)
{
    const Text *x = arg;
    Lesson l;
    TfErr err;
    double t0 = tf_thread_seconds();
    int rc = lesson_parse(&l, x->t, x->n, "big.txt", &err);
    double t = tf_thread_seconds() - t0;
    expect_true(rc == 0, "big lesson: %s", err.msg);
    lesson_free(&l);
    return t;
}

/* One step with n directive lines. */
static char *many_directives(int n, size_t *len)
{
    const char *head = "@title T\n@step S\nText.\n";
    char *t = malloc(strlen(head) + (size_t)n * 10 + 1);
    strcpy(t, head);
    size_t at = strlen(t);
    for (int i = 0; i < n; i++) {
        memcpy(t + at, "@layer 1\n", 9);
        at += 9;
    }
    t[at] = 0;
    *len = at;
    return t;
}

/* Appending each directive with strlen + realloc made a 1 MB lesson take
 * 1.2 s (20 s under ASan): quadratic. Sixteen times the directives must
 * cost about sixteen times the time, not 256. */
static void test_directives_append_in_linear_time(void **state)
{
    (void)state;
    Text small, big;
    char *s = many_directives(6250, &small.n), *b = many_directives(100000, &big.n);
    small.t = s;
    big.t = b;
    double ratio = tu_growth(parse_seconds, &small, &big);
    expect_true(ratio < TU_GROWTH_BOUND, "6250 -> 100k directives: ratio %.1f", ratio);
    free(s);
    free(b);
}

static void test_many_files_and_long_paths(void **state)
{
    (void)state;
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/many", g_dir);
    mkdir(dir, 0700);
    for (int i = 0; i < 300; i++) {
        snprintf(path, sizeof path, "%s/%03d-l%d.txt", dir, i, i);
        write_file(path, LESSON);
    }
    LessonSet set;
    int bad = 0;
    expect_true(lessons_load_dir(&set, dir, NULL, NULL, &bad) == 0, "load");
    expect_true(set.n == 300 && bad == 0, "300 lessons, none cut: %d loaded, %d bad", set.n, bad);
    lessons_free(&set);
    /* a folder whose path with a file name exceeds the path buffer */
    char deep[1100];
    snprintf(deep, sizeof deep, "%s/", g_dir);
    while (strlen(deep) < 1000)
        strcat(deep, "dddddddddddddddddddd/");
    deep[strlen(deep) - 1] = 0;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", deep);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/01-long-name-of-a-lesson.txt", deep);
    write_file(cmd, LESSON);
    expect_true(lessons_load_dir(&set, deep, NULL, NULL, &bad) == 0, "load");
    expect_true(set.n == 0 && bad == 1, "the lesson with a too long path is reported: %d bad", bad);
    lessons_free(&set);
}

int main(void)
{
    TU_RUN(setup, teardown,
           cmocka_unit_test(test_bom_and_line_ends),
           cmocka_unit_test(test_names_and_kinds_of_file),
           cmocka_unit_test(test_directives_append_in_linear_time),
           cmocka_unit_test(test_many_files_and_long_paths));
}
