/* test_check_layout.c - tools/check-layout.sh's circle rule on tiny
 * made-up trees: each case writes a few files under a scratch core/x/,
 * compiles its .c files into the scratch build/ (the rule reads the
 * objects), runs the script on that tree and checks its verdict and what
 * it printed. Files that call each other, directly, through a third file,
 * through a header's macro or inline function, must fail with the circle
 * named; calls one way and types shared both ways must pass; a missing
 * object fails; a long file is a warning only. The view and struct rules
 * get a made-up app/: a view including ops.h or naming the Session fails,
 * and the App fails at 41 members (nested structs and comma lists counted
 * as C counts them) and passes at 40. */
#include "tool_util.h"

#include <sys/stat.h>
#include <unistd.h>

enum { MAX_FILES = 4, MAX_WANT = 2 };

typedef struct LayoutFile {
    const char *name; /* under core/x/ */
    const char *text;
} LayoutFile;

typedef struct LayoutCase {
    const char *what;
    LayoutFile files[MAX_FILES];
    int rc;                      /* the script's exit status */
    const char *want[MAX_WANT];  /* lines it must print */
    const char *never;           /* a word it must not print (or NULL) */
    int no_objects;              /* leave the .c files uncompiled */
} LayoutCase;

static char g_long[901 * 16]; /* 901 lines, written by main */

#define CIRCLE "layout: circle: core/x/"

static const LayoutCase CASES[] = {
    {"two files calling each other",
     {{"a.c", "int b_fn(int);\nint a_fn(int x) { return x ? b_fn(x - 1) : 0; }\n"},
      {"b.c", "int a_fn(int);\nint b_fn(int x) { return a_fn(x); }\n"}},
     1, {CIRCLE "a.c -> core/x/b.c -> core/x/a.c (b_fn; a_fn)"}, NULL, 0},
    {"a circle through a third file",
     {{"a.c", "int b_fn(int);\nint a_fn(int x) { return b_fn(x); }\n"},
      {"b.c", "int c_fn(int);\nint b_fn(int x) { return c_fn(x); }\n"},
      {"c.c", "int a_fn(int);\nint c_fn(int x) { return x ? a_fn(x - 1) : 0; }\n"}},
     1, {CIRCLE "a.c -> core/x/b.c -> core/x/c.c -> core/x/a.c (b_fn; c_fn; a_fn)"}, NULL, 0},
    {"back through a function-like macro of a.h",
     {{"a.h", "#define A_TWICE(x) ((x) * 2)\n"},
      {"a.c", "#include \"a.h\"\nint b_fn(int);\nint a_fn(int x) { return b_fn(x); }\n"},
      {"b.c", "#include \"a.h\"\nint b_fn(int x) { return A_TWICE(x); }\n"}},
     1, {CIRCLE "a.c -> core/x/b.c -> core/x/a.c (b_fn; A_TWICE)"}, NULL, 0},
    {"back through a static inline function of a header a.h includes",
     {{"a.h", "#include \"a_base.h\"\n"},
      {"a_base.h", "static inline int a_half(int x) { return x / 2; }\n"},
      {"a_base.c", "#include \"a_base.h\"\nint b_fn(int);\nint a_fn(int x) { return b_fn(x); }\n"},
      {"b.c", "#include \"a.h\"\nint b_fn(int x) { return a_half(x); }\n"}},
     1, {CIRCLE "a_base.c -> core/x/b.c -> core/x/a_base.c (b_fn; a_half)"}, NULL, 0},
    {"calls one way, types and constants both ways, a macro named in a comment and a string",
     {{"a.h", "#ifndef A_H\n#define A_H\ntypedef struct A { int n; } A;\n#define A_MAX 4\n"
              "#define A_SIZE(a) ((a)->n)\nint a_fn(const A *a);\n#endif\n"},
      {"b.h", "#include \"a.h\"\ntypedef struct B { A a; } B;\nint b_fn(const B *b);\n"},
      {"a.c", "#include \"a.h\"\n#include \"b.h\"\nint a_fn(const A *a) { B b = {*a}; return b_fn(&b) + A_SIZE(a); }\n"},
      {"b.c", "#include \"b.h\"\n/* A_SIZE(b) is not called here */\n"
              "int b_fn(const B *b) { const char *s = \"A_SIZE(\"; return b->a.n + A_MAX + (s[0] == 'A'); }\n"}},
     0, {NULL}, "circle", 0},
    {"a missing object: the rule cannot see that file's calls",
     {{"a.c", "int a_fn(int x) { return x; }\n"}}, 1, {"objects are missing"}, NULL, 1},
    {"above 900 lines a file is a warning, not a failure",
     {{"long.c", g_long}}, 0, {"layout: warning: core/x/long.c has 901 lines"}, "circle", 0},
};

static char g_script[4096];

/* Write text into dir/rel, making its folders. */
static void put(const char *dir, const char *rel, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    expect_true(tu_sh("mkdir -p \"$(dirname '%s')\"", path) == 0, "mkdir for %s", path);
    tu_write_text(dir, rel, text);
}

/* Compile every .c of the case into dir/build/core/x/. */
static void compile(const char *dir, const LayoutCase *c)
{
    for (int i = 0; i < MAX_FILES && c->files[i].name; i++) {
        const char *n = c->files[i].name;
        size_t len = strlen(n);
        if (len < 2 || strcmp(n + len - 2, ".c") != 0)
            continue;
        expect_true(tu_sh("cc -std=c11 -c -I'%s/core/x' '%s/core/x/%s' -o '%s/build/core/x/%.*so'", dir, dir, n,
                          dir, (int)len - 1, n) == 0,
                    "%s: %s compiles", c->what, n);
    }
}

/* Run the script on dir; its output in *out (freed by the caller). */
static int run_script(const char *dir, char **out)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "'%s' '%s' 2>&1", g_script, dir);
    FILE *p = popen(cmd, "r");
    expect_true(p != NULL, "cannot run %s", cmd);
    *out = tu_read_all(p, NULL);
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_case(const LayoutCase *c, const char *dir, const char *out, int rc)
{
    expect_true(rc == c->rc, "%s: exit status %d expected, got %d; it printed:\n%s", c->what, c->rc, rc, out);
    for (int i = 0; i < MAX_WANT && c->want[i]; i++)
        expect_true(strstr(out, c->want[i]) != NULL, "%s: expected the line\n  %s\ngot:\n%s", c->what,
                    c->want[i], out);
    expect_true(!c->never || !strstr(out, c->never), "%s: \"%s\" printed:\n%s", c->what, c->never, out);
    (void)dir;
}

static void test_circles(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        const LayoutCase *c = &CASES[k];
        char dir[64], rel[128];
        expect_true(tu_scratch(dir, sizeof dir, "layout") == 0, "a scratch folder");
        for (int i = 0; i < MAX_FILES && c->files[i].name; i++) {
            snprintf(rel, sizeof rel, "core/x/%s", c->files[i].name);
            put(dir, rel, c->files[i].text);
        }
        if (!c->no_objects) {
            expect_true(tu_sh("mkdir -p '%s/build/core/x'", dir) == 0, "mkdir build");
            compile(dir, c);
        }
        char *out = NULL;
        int rc = run_script(dir, &out);
        check_case(c, dir, out ? out : "", rc);
        free(out);
        tu_scratch_remove(dir);
    }
}

/* An App of n members: a nested struct (one member), a comma list of two,
 * a function pointer, comments with ; and , in them; the rest plain ints. */
static void put_app(const char *dir, int n)
{
    char text[8192];
    int k = snprintf(text, sizeof text,
                     "typedef struct Other { int a, b, c; } Other;\n"
                     "typedef struct App {\n"
                     "    struct { int on; double next; } play; /* one; member, this */\n"
                     "    int x, y;\n"
                     "    void (*hook)(int a, int b);\n");
    for (int i = 4; i < n; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "    int m%d; // a, b;\n", i);
    snprintf(text + k, sizeof text - (size_t)k, "} App;\n");
    put(dir, "app/window/app.h", text);
}

static void test_views_and_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *what, *rel, *text;
        int app_members, rc;
        const char *want;
    } C[] = {
        {"an App of 40 members passes", NULL, NULL, 40, 0, NULL},
        {"an App of 41 members fails", NULL, NULL, 41, 1, "App (app/window/app.h) has 41 members (at most 40"},
        {"a view including the engine's ops.h fails", "app/views/v.h", "#include \"ops.h\"\n", 0, 1,
         "layout: app/views/v.h (a view) includes ops.h"},
        {"a view naming the Session fails", "app/views/v.h", "struct Session;\nint v(const struct Session *s);\n",
         0, 1, "layout: app/views/v.h (a view) names the Session"},
        {"a view including its own headers passes", "app/views/v.h", "#include \"view.h\"\n", 0, 0, NULL},
    };
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        char dir[64];
        expect_true(tu_scratch(dir, sizeof dir, "layout") == 0, "a scratch folder");
        if (C[k].app_members)
            put_app(dir, C[k].app_members);
        if (C[k].rel)
            put(dir, C[k].rel, C[k].text);
        char *out = NULL;
        int rc = run_script(dir, &out);
        const char *o = out ? out : "";
        expect_true(rc == C[k].rc, "%s: exit status %d expected, got %d; it printed:\n%s", C[k].what, C[k].rc, rc, o);
        expect_true(!C[k].want || strstr(o, C[k].want), "%s: expected\n  %s\ngot:\n%s", C[k].what,
                    C[k].want ? C[k].want : "", o);
        free(out);
        tu_scratch_remove(dir);
    }
}

int main(void)
{
    char cwd[2048];
    expect_true(getcwd(cwd, sizeof cwd) != NULL, "the current folder");
    snprintf(g_script, sizeof g_script, "%s/tools/check-layout.sh", cwd); /* make test runs at the top */
    struct stat st;
    expect_true(stat(g_script, &st) == 0, "%s exists (run from the top of the tree)", g_script);
    for (int i = 0; i < 901; i++)
        snprintf(g_long + strlen(g_long), sizeof g_long - strlen(g_long), "int v%d;\n", i);
    TU_RUN(NULL, NULL, cmocka_unit_test(test_circles), cmocka_unit_test(test_views_and_sizes));
}
