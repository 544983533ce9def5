/* results.c - pre/post-test answers kept, exported and summed up
 * (results.h). */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "file.h"

#define HEADER "learner,test,lesson,question,answer,right,seconds,when"
#define MAX_QUESTIONS 512
#define LINE_MAX_BYTES 1024

/* mkdir -p of dir (which fits a PATH buffer). */
static int make_dirs(char *dir, TfErr *err)
{
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(dir, 0755);
        *p = '/';
        if (rc && errno != EEXIST)
            return tf_fail(err, "cannot make %s: %s", dir, strerror(errno));
    }
    if (mkdir(dir, 0755) && errno != EEXIST)
        return tf_fail(err, "cannot make %s: %s", dir, strerror(errno));
    return 0;
}

int results_dir(char *buf, size_t cap, int make, TfErr *err)
{
    const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (x && x[0] == '/')
        n = snprintf(buf, cap, "%s/stepformer", x);
    else if (home && home[0])
        n = snprintf(buf, cap, "%s/.local/share/stepformer", home);
    else
        return tf_fail(err, "neither XDG_DATA_HOME nor HOME is set: there is no folder for the results");
    if (n < 0 || (size_t)n >= cap)
        return tf_fail(err, "the data folder's path is too long");
    return make ? make_dirs(buf, err) : 0;
}

int results_learner(char id[RESULTS_ID_LEN + 1], TfErr *err)
{
    char dir[3000], path[3100];
    if (results_dir(dir, sizeof dir, 1, err))
        return -1;
    snprintf(path, sizeof path, "%s/learner-id", dir);
    FILE *f = tf_fopen_regular(path, NULL, err);
    if (f) {
        int ok = fscanf(f, "%16[0-9a-f]", id) == 1 && strlen(id) == RESULTS_ID_LEN;
        fclose(f);
        if (ok)
            return 0;
    }
    unsigned char raw[RESULTS_ID_LEN / 2];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)sizeof raw)
        return tf_fail(err, "cannot draw a learner id from /dev/urandom");
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(id + 2 * i, 3, "%02x", raw[i]);
    TfAtomic w;
    if (tf_atomic_open(&w, path, 0644, err))
        return -1;
    fprintf(w.f, "%s\n", id);
    return tf_atomic_commit(&w, err);
}

/* A field for the CSV: no commas, quotes or line breaks in ids. */
static int clean(const char *s)
{
    return s && *s && !strpbrk(s, ",\"\r\n") && strlen(s) < 128;
}

int results_record(const char *test, const char *lesson, const char *question, int answer, int right,
                   double seconds, TfErr *err)
{
    if (!clean(test) || !clean(lesson) || !clean(question))
        return tf_fail(err, "results: a test, lesson or question id is empty or holds a comma");
    char id[RESULTS_ID_LEN + 1], dir[3000], path[3100];
    if (results_learner(id, err) || results_dir(dir, sizeof dir, 1, err))
        return -1;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    struct stat st;
    int fresh = stat(path, &st) != 0;
    if (!fresh && !S_ISREG(st.st_mode))
        return tf_fail(err, "%s is not a regular file", path);
    FILE *f = fopen(path, "a");
    if (!f)
        return tf_fail(err, "cannot write %s: %s", path, strerror(errno));
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if (fresh)
        fprintf(f, HEADER "\n");
    fprintf(f, "%s,%s,%s,%s,%d,%d,%.1f,%s\n", id, test, lesson, question, answer, right ? 1 : 0,
            seconds < 0 ? 0 : seconds, when);
    int bad = ferror(f);
    if (fclose(f) || bad)
        return tf_fail(err, "cannot write %s (disk full?)", path);
    return 0;
}

int results_export(const char *out, int *rows, TfErr *err)
{
    char dir[3000], path[3100];
    if (results_dir(dir, sizeof dir, 0, err))
        return -1;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *in = tf_fopen_regular(path, NULL, err);
    if (!in)
        return tf_fail(err, "no test answers on this account yet (%s): answer a pre-test or post-test lesson first",
                       path);
    TfAtomic w;
    if (tf_atomic_open(&w, out, 0644, err)) {
        fclose(in);
        return -1;
    }
    char line[LINE_MAX_BYTES];
    int n = 0;
    while (fgets(line, sizeof line, in)) {
        n += strncmp(line, "learner,", 8) != 0;
        fputs(line, w.f);
    }
    fclose(in);
    *rows = n;
    return tf_atomic_commit(&w, err);
}

typedef struct QStat {
    char id[128];
    int n[2], right[2]; /* pre, post */
} QStat;

static QStat *stat_of(QStat *q, int *nq, const char *id)
{
    for (int i = 0; i < *nq; i++)
        if (!strcmp(q[i].id, id))
            return &q[i];
    if (*nq >= MAX_QUESTIONS)
        return NULL;
    QStat *s = &q[(*nq)++];
    memset(s, 0, sizeof *s);
    snprintf(s->id, sizeof s->id, "%s", id);
    return s;
}

static void rate(char *buf, size_t cap, const QStat *s, int k)
{
    if (s->n[k])
        snprintf(buf, cap, "%3.0f%% of %d", 100.0 * s->right[k] / s->n[k], s->n[k]);
    else
        snprintf(buf, cap, "–");
}

int results_summary(FILE *out, char **paths, int n, int csv, TfErr *err)
{
    static QStat q[MAX_QUESTIONS];
    int nq = 0;
    for (int i = 0; i < n; i++) {
        FILE *f = tf_fopen_regular(paths[i], NULL, err);
        if (!f)
            return -1;
        char line[LINE_MAX_BYTES];
        int ln = 0;
        while (fgets(line, sizeof line, f)) {
            ln++;
            if (!strchr(line, '\n') && !feof(f)) {
                fclose(f);
                return tf_fail(err, "%s:%d: a line longer than %d bytes is not a results line", paths[i], ln,
                               LINE_MAX_BYTES);
            }
            if (ln == 1 && !strncmp(line, "learner,", 8))
                continue;
            char learner[64], test[16], lesson[128], question[128];
            int answer, right;
            double secs;
            if (sscanf(line, "%63[^,],%15[^,],%127[^,],%127[^,],%d,%d,%lf,", learner, test, lesson, question,
                       &answer, &right, &secs) != 7 ||
                (right != 0 && right != 1)) {
                fclose(f);
                return tf_fail(err, "%s:%d: not a results line (learner,test,lesson,question,answer,right,seconds,when)",
                               paths[i], ln);
            }
            int k = !strcmp(test, "post") ? 1 : !strcmp(test, "pre") ? 0 : -1;
            QStat *s = k >= 0 ? stat_of(q, &nq, question) : NULL;
            if (s) {
                s->n[k]++;
                s->right[k] += right;
            }
        }
        fclose(f);
    }
    if (!nq)
        return tf_fail(err, "no pre- or post-test answers in the files given");
    if (csv)
        fprintf(out, "question,pre_n,pre_right,post_n,post_right\n");
    else
        fprintf(out, "%-24s %-14s %-14s %s\n", "question", "pre", "post", "change");
    int all[2] = {0, 0}, ok[2] = {0, 0};
    for (int i = 0; i < nq; i++) {
        const QStat *s = &q[i];
        for (int k = 0; k < 2; k++)
            all[k] += s->n[k], ok[k] += s->right[k];
        if (csv) {
            fprintf(out, "%s,%d,%d,%d,%d\n", s->id, s->n[0], s->right[0], s->n[1], s->right[1]);
            continue;
        }
        char pre[32], post[32], change[32] = "";
        rate(pre, sizeof pre, s, 0);
        rate(post, sizeof post, s, 1);
        if (s->n[0] && s->n[1])
            snprintf(change, sizeof change, "%+.0f points",
                     100.0 * s->right[1] / s->n[1] - 100.0 * s->right[0] / s->n[0]);
        fprintf(out, "%-24s %-14s %-14s %s\n", s->id, pre, post, change);
    }
    if (!csv) {
        QStat tot = {"all questions", {all[0], all[1]}, {ok[0], ok[1]}};
        char pre[32], post[32];
        rate(pre, sizeof pre, &tot, 0);
        rate(post, sizeof post, &tot, 1);
        fprintf(out, "%-24s %-14s %-14s\n", tot.id, pre, post);
    }
    return 0;
}
