/* test_install.c - `make install` into a temporary DESTDIR, checked as a
 * lab admin's machine would see it: the files are where desktops look, the
 * menu entry and the AppStream metadata validate, the manual page renders
 * and covers every command, option and key, and the installed program finds
 * its data from any folder. Tests whose tool is missing say so and are
 * skipped (CI installs them all: tools/deps.sh). */
#include "tool_util.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

static char PROG[1024];    /* build/stepformer */
static char BUILD_[1024];  /* build (or build/san) */
static char ROOT[256];     /* DESTDIR */
static char PREFIX_[1400]; /* ROOT/usr/local */
static char SRC[1024];     /* the source tree (the current folder) */
static int installed;

static void need_install(void)
{
    expect_true(installed, "make install into %s succeeded (see above)", ROOT);
}

/* Every file a desktop, a software centre and man look for. */
static void test_install_layout(void **state)
{
    (void)state;
    need_install();
    static const char *files[] = {
        "bin/stepformer",
        "share/applications/stepformer.desktop",
        "share/metainfo/io.github.stepformer.metainfo.xml",
        "share/icons/hicolor/scalable/apps/stepformer.svg",
        "share/icons/hicolor/48x48/apps/stepformer.png",
        "share/icons/hicolor/128x128/apps/stepformer.png",
        "share/icons/hicolor/256x256/apps/stepformer.png",
        "share/man/man1/stepformer.1",
        "share/bash-completion/completions/stepformer",
        "share/stepformer/assets/models/en2zh.safetensors",
        "share/stepformer/lessons/en/05-attention.txt",
        "share/stepformer/lessons/zh/05-attention.txt",
        "share/locale",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[2048];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", PREFIX_, files[i]);
        expect_true(stat(path, &st) == 0, "installed: %s", path);
    }
    expect_true(tu_sh("bash -n %s/share/bash-completion/completions/stepformer", PREFIX_) == 0,
                "the bash completion parses");
    /* the PNG icons are the sizes their folders say */
    expect_true(tu_sh("file %s/share/icons/hicolor/48x48/apps/stepformer.png | grep -q '48 x 48'", PREFIX_) == 0 ||
                    !tu_have("file"),
                "48x48 icon is 48 x 48");
}

static void test_desktop_and_metainfo_validate(void **state)
{
    (void)state;
    need_install();
    TU_NEED("desktop-file-validate");
    TU_NEED("appstreamcli");
    char *d = tu_output("desktop-file-validate %s/share/applications/stepformer.desktop 2>&1", PREFIX_);
    expect_true(d && d[0] == 0, "desktop-file-validate says nothing, got: %s", d ? d : "(failed)");
    free(d);
    expect_true(tu_sh("appstreamcli validate --no-net --pedantic %s/share/metainfo/io.github.stepformer.metainfo.xml",
                   PREFIX_) == 0, "appstreamcli validate --no-net");
    char *m = tu_output("appstreamcli validate --no-net --pedantic %s/share/metainfo/io.github.stepformer.metainfo.xml 2>&1",
                     PREFIX_);
    expect_true(m && !strstr(m, "W:") && !strstr(m, "E:"), "no warnings: %s", m ? m : "");
    expect_true(m && !strstr(m, "P:") && !strstr(m, "I:"), "not even pedantic notes: %s", m ? m : "");
    free(m);
}

/* Tab in bash: commands, each command's flags (from its --help), stage
 * names and the values of fixed-choice options. */
static void test_bash_completion(void **state)
{
    (void)state;
    need_install();
    const char *bc = "/usr/share/bash-completion/bash_completion";
    struct stat st;
    if (stat(bc, &st) != 0) {
        printf("  skipped: %s is missing (the bash-completion package)\n", bc);
        skip();
    }
    static const TuPair cases[] = {
        {"stepformer sh", "shot"},
        {"stepformer shot --cap", "--caption"},
        {"stepformer shot --stage enc.self.we", "enc.self.weights"},
        {"stepformer shot --format ", "png svg pdf"},
        {"stepformer dump --format ", "csv json"},
        {"stepformer --th", "--theme"},
        {"stepformer translate --be", "--beam"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = tu_output(
            "PATH='%s/bin':\"$PATH\" bash -c '. %s; . %s/share/bash-completion/completions/stepformer; "
            "COMP_LINE=\"$1\"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<\"$1\"; "
            "[[ $1 == *\" \" ]] && COMP_WORDS+=(\"\"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); "
            "_stepformer; echo \"${COMPREPLY[*]}\"' _ '%s'",
            PREFIX_, bc, PREFIX_, cases[i].in);
        if (got)
            got[strcspn(got, "\n")] = 0;
        expect_true(got && strcmp(got, cases[i].want) == 0, "'%s' + Tab gives '%s', got '%s'",
                    cases[i].in, cases[i].want, got ? got : "(failed)");
        free(got);
    }
}

/* The manual renders without complaint and covers every command and each
 * command's options (from their own --help), and the window's keys. */
static void test_man_page_in_step_with_help(void **state)
{
    (void)state;
    need_install();
    TU_NEED("man");
    char *warn = tu_output("MANWIDTH=80 man --warnings -l %s/share/man/man1/stepformer.1 2>&1 >/dev/null", PREFIX_);
    expect_true(warn && warn[0] == 0, "man -l renders without warnings, got: %s", warn ? warn : "(failed)");
    free(warn);
    char *page = tu_output("MANWIDTH=200 man -l %s/share/man/man1/stepformer.1 2>/dev/null | col -b", PREFIX_);
    expect_true(page && strlen(page) > 2000, "the rendered page");
    char *cmds = tu_output("'%s' --help | sed -n '/^commands:/,/^$/s/^  \\([a-z]*\\) .*/\\1/p'", PROG);
    expect_true(cmds && strlen(cmds) > 20, "commands from --help");
    int n_cmds = 0, n_opts = 0;
    for (char *c = strtok(cmds, "\n"); c; c = strtok(NULL, "\n")) {
        n_cmds++;
        char head[64];
        snprintf(head, sizeof head, "\n   %s\n", c);
        expect_true(strstr(page, head) != NULL, "a section for the command '%s'", c);
        char *opts = tu_output("'%s' %s --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u", PROG, c);
        expect_true(opts != NULL, "%s --help", c);
        for (char *o = opts; *o;) {
            char *nl = strchr(o, '\n');
            if (nl)
                *nl = 0;
            expect_true(strstr(page, o) != NULL, "the manual names %s %s", c, o);
            n_opts++;
            o = nl ? nl + 1 : o + strlen(o);
        }
        free(opts);
    }
    printf("  %d commands, %d options in the manual\n", n_cmds, n_opts);
    expect_true(n_cmds >= 9, "at least 9 commands, got %d", n_cmds);
    static const char *keys[] = {"Ctrl+S", "Ctrl+E", "F11", "Tab", "Space", "Esc",
                                 "STEPFORMER_DATADIR", "info --paths"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        expect_true(strstr(page, keys[i]) != NULL, "the manual names %s", keys[i]);
    free(cmds);
    free(page);
}

/* Run from / with no STEPFORMER_DATADIR, the installed program finds the
 * data installed beside it (not the source tree) and draws. */
static void test_installed_program_finds_its_data(void **state)
{
    (void)state;
    need_install();
    char *paths = tu_output("cd / && env -u STEPFORMER_DATADIR '%s/bin/stepformer' info --paths", PREFIX_);
    expect_true(paths != NULL, "info --paths runs from /");
    char want[2048];
    snprintf(want, sizeof want, "%s/share/stepformer", PREFIX_);
    expect_true(strstr(paths, want) != NULL, "info --paths names %s:\n%s", want, paths ? paths : "");
    free(paths);
    char *les = tu_output("cd / && env -u STEPFORMER_DATADIR '%s/bin/stepformer' lessons", PREFIX_);
    expect_true(les && strstr(les, "attention"), "lessons listed from /: %s", les ? les : "(failed)");
    free(les);
    expect_true(tu_sh("cd / && env -u STEPFORMER_DATADIR '%s/bin/stepformer' shot --stage enc.self.weights "
                   "--out '%s/from-root.svg' >/dev/null", PREFIX_, ROOT) == 0,
                "shot from / with the installed data");
    char *tr = tu_output("cd / && '%s/bin/stepformer' translate 'i love china'", PREFIX_);
    expect_true(tr && strstr(tr, "中国"), "the installed model translates: %s", tr ? tr : "(failed)");
    free(tr);
    /* STEPFORMER_DATADIR wins; a wrong one is said */
    char *env = tu_output("cd / && STEPFORMER_DATADIR='%s/share/stepformer' '%s/bin/stepformer' info --paths",
                       PREFIX_, PREFIX_);
    expect_true(env && strstr(env, "STEPFORMER_DATADIR"), "info --paths names the variable: %s", env ? env : "");
    free(env);
}

static int setup(void **state)
{
    (void)state;
    if (tu_scratch(ROOT, sizeof ROOT, "install") < 0)
        return -1;
    snprintf(PREFIX_, sizeof PREFIX_, "%s/usr/local", ROOT);
    if (!getcwd(SRC, sizeof SRC))
        return -1;
    /* make must see the build folder as it names it ("build", not
     * "build/tests/..") or it would rebuild everything */
    char real[PATH_MAX];
    size_t ns = strlen(SRC);
    if (realpath(BUILD_, real) && strncmp(real, SRC, ns) == 0 && real[ns] == '/')
        snprintf(BUILD_, sizeof BUILD_, "%s", real + ns + 1);
    /* the same build folder as these tests (build or build/san), default
     * PREFIX, so nothing is rebuilt; quiet unless it fails */
    const char *san = strstr(BUILD_, "/san") ? "SANITIZE=1" : "";
    int rc = tu_sh("make -s --no-print-directory -C '%s' %s BUILD='%s' DESTDIR='%s' install >'%s/make.log' 2>&1",
                SRC, san, BUILD_, ROOT, ROOT);
    installed = rc == 0;
    if (!installed)
        tu_sh("cat '%s/make.log'", ROOT);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_scratch_remove(ROOT);
    return 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    tu_program_path(PROG, sizeof PROG, argv[0]);
    snprintf(BUILD_, sizeof BUILD_, "%s", PROG);
    char *slash = strrchr(BUILD_, '/');
    if (slash)
        *slash = 0; /* build/tests/.. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_install_layout),
        cmocka_unit_test(test_desktop_and_metainfo_validate),
        cmocka_unit_test(test_bash_completion),
        cmocka_unit_test(test_man_page_in_step_with_help),
        cmocka_unit_test(test_installed_program_finds_its_data),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
