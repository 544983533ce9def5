/* cmd_train.c - `stepformer train`: train a model on a built-in task or the
 * user's sentence pairs, with a progress line, periodic checkpoints that
 * resume exactly, and a clean stop on Ctrl+C. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "clock.h"
#include "cli.h"
#include "atomic.h"
#include "cli_data.h"
#include "commands.h"
#include "train.h"

static const char *HELP =
    "usage: stepformer train (--task NAME | --data FILE) --out FILE\n"
    "         [--preset NAME | --d-model N --heads N --layers N --d-ff N]\n"
    "         [--enc-layers N] [--dec-layers N] [--norm post|pre]\n"
    "         [--tie none|generator|all] [--max-len N]\n"
    "         [--steps N] [--batch N] [--seed N] [--warmup N] [--lr-scale X]\n"
    "         [--dropout P] [--label-smoothing E] [--clip X] [--threads N]\n"
    "         [--eval-every N] [--eval-pairs N] [--save-every N] [--log-every N]\n"
    "         [--tokens word|char] [--src-tokens M] [--tgt-tokens M]\n"
    "         [--task-len N] [--data-seed N] [--resume FILE] [--weights-only]\n"
    "\n"
    "Train an encoder-decoder Transformer as in the paper: label-smoothed\n"
    "cross-entropy, Adam (0.9, 0.98, 1e-9) with the warmup schedule\n"
    "lrate = lr_scale * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5),\n"
    "residual dropout, gradient-norm clipping, batches of similar lengths.\n"
    "The run is a function of the seed: the same command gives the same model.\n"
    "\n"
    "Data: --task copy|reverse|sort|en2zh (built in; --task-len sets the\n"
    "string lengths of the character tasks) or --data FILE, tab-separated\n"
    "pairs, tokenised by words unless --tokens char (bad lines are reported\n"
    "and skipped; --data - reads them from standard input, e.g. from zcat;\n"
    "a NUL byte or a line over 16 MiB stops it). --data-seed fixes the task's sentences and the held-out\n"
    "split (default 1).\n"
    "\n"
    "Model: --preset classroom (64/4/256/2+2, the default), base or big, and\n"
    "any of --d-model --heads --layers --d-ff --enc-layers --dec-layers on\n"
    "top. --tie all shares the embeddings and the output projection (the\n"
    "default when both sides have the same tokens).\n"
    "\n"
    "Defaults: --steps 2000 --batch 32 --seed 1 --warmup 4000 --lr-scale 1\n"
    "--dropout 0.1 --label-smoothing 0.1 --clip 1 --threads 2; held-out\n"
    "evaluation every 500 steps on 200 pairs and at the end on 500 (with its\n"
    "progress; --eval-pairs N sets both, 0 = all), a checkpoint every 1000 steps.\n"
    "With fewer than two usable pairs there is no held-out set: the model is\n"
    "trained and saved without evaluation. --out is checked (a temporary file\n"
    "is created in its folder) before anything else.\n"
    "\n"
    "--out FILE is written atomically with the optimizer state, so that\n"
    "--resume FILE continues bit for bit (give --steps for the new total);\n"
    "--weights-only leaves the optimizer state out of the final file (a third\n"
    "of the size; it can no longer be resumed). Ctrl+C or SIGTERM, even\n"
    "during the final evaluation, stops promptly and saves (a third ends at once). A NaN\n"
    "or infinite loss stops training and keeps the last good parameters; an\n"
    "evaluation that fails (short of memory) saves the run first, then says why.\n";

enum {
    SET_BATCH = 1, SET_WARMUP = 2, SET_SEED = 4, SET_LR = 8, SET_DROPOUT = 16,
    SET_LS = 32, SET_CLIP = 64
};

typedef struct Args {
    DataArgs data;
    const char *preset, *out, *resume;
    int d_model, heads, layers, enc, dec, d_ff, max_len, norm, tie;
    long long steps;
    TrainOpts o;
    unsigned set;
    int eval_every, eval_pairs, final_pairs, save_every, log_every, weights_only, arch_given;
} Args;

static volatile sig_atomic_t g_stop, g_signals;

/* The first signal stops the work (the step, the evaluation) and the run is
 * saved; so is it after a second one (a user pressing Ctrl+C twice still
 * keeps the run); a third ends the program at once. */
static void on_signal(int sig)
{
    g_stop = sig;
    if (++g_signals >= 3)
        signal(sig, SIG_DFL);
    if (g_signals >= 3)
        raise(sig);
}

/* ---- argument parsing ---- */

static int opt_int(const char *v, long lo, long hi, int *out, const char *name,
                   const char *C)
{
    if (v && cli_int(v, lo, hi, out))
        return cli_fail(C, "--%s must be an integer in %ld..%ld, not '%s'", name, lo, hi, v);
    return 0;
}

static int opt_float(const char *v, double lo, double hi, float *out,
                     const char *name, const char *C)
{
    if (v && cli_float(v, lo, hi, out))
        return cli_fail(C, "--%s must be a number in [%g, %g], not '%s'", name, lo, hi, v);
    return 0;
}

/* Architecture options; returns 1 when argv[*i] was one, *bad on error. */
static int parse_arch(char **argv, int argc, int *i, Args *a, int *bad)
{
    const char *C = "train", *v;
    const CliOpt sizes[] = {
        CLI_STR_OPT("preset", &a->preset), CLI_INT_OPT("d-model", &a->d_model, 1, TF_MAX_DMODEL),
        CLI_INT_OPT("heads", &a->heads, 1, TF_MAX_HEADS), CLI_INT_OPT("layers", &a->layers, 1, TF_MAX_LAYERS),
        CLI_INT_OPT("enc-layers", &a->enc, 1, TF_MAX_LAYERS), CLI_INT_OPT("dec-layers", &a->dec, 1, TF_MAX_LAYERS),
        CLI_INT_OPT("d-ff", &a->d_ff, 1, TF_MAX_DFF), CLI_INT_OPT("max-len", &a->max_len, 2, TF_MAX_LEN),
    };
    if (cli_match(argv, argc, i, sizes, CLI_N(sizes), C, bad)) {
        a->arch_given = 1;
    } else if (cli_opt(argv, argc, i, "norm", &v, C, bad)) {
        a->norm = v && strcmp(v, "post") == 0 ? TF_NORM_POST : v && strcmp(v, "pre") == 0 ? TF_NORM_PRE : -2;
        if (v && a->norm == -2)
            *bad = cli_fail(C, "--norm must be post or pre, not '%s'", v);
        a->arch_given = 1;
    } else if (cli_opt(argv, argc, i, "tie", &v, C, bad)) {
        static const char *T[] = {"none", "generator", "all"};
        a->tie = -2;
        for (int k = 0; v && k < 3; k++)
            if (strcmp(v, T[k]) == 0)
                a->tie = k;
        if (v && a->tie == -2)
            *bad = cli_fail(C, "--tie must be none, generator or all, not '%s'", v);
        a->arch_given = 1;
    } else {
        return 0;
    }
    return 1;
}

/* Optimiser and schedule options. */
static int parse_train(char **argv, int argc, int *i, Args *a, int *bad)
{
    const char *C = "train", *v;
    int n;
    TrainOpts *o = &a->o;
    if (cli_opt(argv, argc, i, "batch", &v, C, bad)) {
        *bad |= opt_int(v, 1, 4096, &o->batch, "batch", C);
        a->set |= SET_BATCH;
    } else if (cli_opt(argv, argc, i, "warmup", &v, C, bad)) {
        *bad |= opt_int(v, 1, 100000000, &o->warmup, "warmup", C);
        a->set |= SET_WARMUP;
    } else if (cli_opt(argv, argc, i, "seed", &v, C, bad)) {
        *bad |= opt_int(v, 0, 2147483647, &n, "seed", C);
        o->seed = (uint64_t)n;
        a->set |= SET_SEED;
    } else if (cli_opt(argv, argc, i, "lr-scale", &v, C, bad)) {
        *bad |= opt_float(v, 1e-6, 1e30, &o->lr_scale, "lr-scale", C);
        a->set |= SET_LR;
    } else if (cli_opt(argv, argc, i, "dropout", &v, C, bad)) {
        *bad |= opt_float(v, 0, 0.9, &o->dropout, "dropout", C);
        a->set |= SET_DROPOUT;
    } else if (cli_opt(argv, argc, i, "label-smoothing", &v, C, bad)) {
        *bad |= opt_float(v, 0, 0.9, &o->label_smoothing, "label-smoothing", C);
        a->set |= SET_LS;
    } else if (cli_opt(argv, argc, i, "clip", &v, C, bad)) {
        *bad |= opt_float(v, 0, 1e30, &o->clip, "clip", C);
        a->set |= SET_CLIP;
    } else if (cli_opt(argv, argc, i, "threads", &v, C, bad)) {
        *bad |= opt_int(v, 1, TRAIN_SHARDS, &o->threads, "threads", C);
    } else if (cli_opt(argv, argc, i, "steps", &v, C, bad)) {
        *bad |= opt_int(v, 1, 2000000000, &n, "steps", C);
        a->steps = n;
    } else if (cli_opt(argv, argc, i, "eval-every", &v, C, bad)) {
        *bad |= opt_int(v, 0, 2000000000, &a->eval_every, "eval-every", C);
    } else if (cli_opt(argv, argc, i, "eval-pairs", &v, C, bad)) {
        *bad |= opt_int(v, 0, 100000000, &a->eval_pairs, "eval-pairs", C);
        a->final_pairs = a->eval_pairs;
    } else if (cli_opt(argv, argc, i, "save-every", &v, C, bad)) {
        *bad |= opt_int(v, 0, 2000000000, &a->save_every, "save-every", C);
    } else if (cli_opt(argv, argc, i, "log-every", &v, C, bad)) {
        *bad |= opt_int(v, 1, 2000000000, &a->log_every, "log-every", C);
    } else {
        return 0;
    }
    return 1;
}

/* Returns 0 to go on, 1 for a bad command line, -1 after --help. */
static int parse(int argc, char **argv, Args *a)
{
    const char *C = "train", *v;
    int bad = 0;
    memset(a, 0, sizeof *a);
    data_args_init(&a->data);
    train_opts_default(&a->o);
    a->norm = a->tie = -1;
    a->steps = 2000;
    a->eval_every = 500;
    a->eval_pairs = 200;
    a->final_pairs = 500; /* the final evaluation: a sample, not all of them */
    a->save_every = 1000;
    a->log_every = 100;
    for (int i = 1; i < argc && !bad; i++) {
        if (cli_flag(argv[i], "help")) {
            fputs(HELP, stdout);
            return -1;
        } else if (cli_flag(argv[i], "weights-only")) {
            a->weights_only = 1;
        } else if (cli_opt(argv, argc, &i, "out", &v, C, &bad)) {
            a->out = v;
        } else if (cli_opt(argv, argc, &i, "resume", &v, C, &bad)) {
            a->resume = v;
        } else if (!parse_arch(argv, argc, &i, a, &bad) &&
                   !parse_train(argv, argc, &i, a, &bad) &&
                   !cli_data_parse(argv, argc, &i, &a->data, C, &bad)) {
            return cli_fail(C, "unknown argument '%s' (see --help)", argv[i]);
        }
    }
    if (bad)
        return 1;
    if (!a->out)
        return cli_fail(C, "--out FILE is required");
    if (!a->resume && !a->data.task && !a->data.file)
        return cli_fail(C, "give --task NAME or --data FILE (see --help)");
    if (a->data.task && a->data.file)
        return cli_fail(C, "give --task or --data, not both");
    if (a->resume && a->arch_given)
        return cli_fail(C, "the architecture comes from the checkpoint when resuming; "
                        "drop --preset/--d-model/... or start a new run");
    return 0;
}

/* ---- the model: new or resumed ---- */

static int new_model(TfModel *m, Args *a, const Dataset *d)
{
    const char *C = "train";
    TfConfig cfg;
    TfErr err;
    if (cfg_preset(&cfg, a->preset ? a->preset : "classroom", &err))
        return cli_fail(C, "%s", err.msg);
    cli_resize(&cfg, a->d_model, a->heads, a->d_ff, a->enc ? a->enc : a->layers,
               a->dec ? a->dec : a->layers, a->max_len);
    if (a->norm >= 0)
        cfg.norm = (TfNorm)a->norm;
    cfg.tie = a->tie >= 0 ? (TfTie)a->tie : trainer_default_tie(d);
    cfg.dropout = a->o.dropout;
    cfg.label_smoothing = a->o.label_smoothing;
    if (trainer_model_new(m, &cfg, d, a->o.seed, &err))
        return cli_fail(C, "%s", err.msg);
    return 0;
}

/* Options on the command line must agree with the checkpoint's, or the
 * resumed run would not be the continuation of the saved one. */
static int resume_opts(Args *a, const TfModel *m)
{
    const char *C = "train";
    TrainOpts saved;
    TfErr err;
    if (train_opts_from_meta(&saved, m, &err))
        return cli_fail(C, "%s: not a training checkpoint: %s", a->resume, err.msg);
    const TrainOpts *o = &a->o;
    struct { unsigned bit; const char *name; int differs; } chk[] = {
        {SET_BATCH, "batch", o->batch != saved.batch},
        {SET_WARMUP, "warmup", o->warmup != saved.warmup},
        {SET_SEED, "seed", o->seed != saved.seed},
        {SET_LR, "lr-scale", o->lr_scale != saved.lr_scale},
        {SET_DROPOUT, "dropout", o->dropout != saved.dropout},
        {SET_LS, "label-smoothing", o->label_smoothing != saved.label_smoothing},
        {SET_CLIP, "clip", o->clip != saved.clip},
    };
    for (size_t k = 0; k < sizeof chk / sizeof chk[0]; k++)
        if ((a->set & chk[k].bit) && chk[k].differs)
            return cli_fail(C, "--%s differs from the checkpoint's; a resumed run "
                            "keeps the options it started with", chk[k].name);
    saved.threads = o->threads;
    a->o = saved;
    return 0;
}

/* ---- progress ---- */

typedef struct Progress {
    int tty;
    double t_start, t_last_print, avg_step;
    long long first_step;
    double exact, tok_acc; /* last held-out figures, < 0 before the first */
} Progress;

static void fmt_eta(char *buf, size_t cap, double s)
{
    if (!(s >= 0) || s > 1e7)
        snprintf(buf, cap, "?");
    else if (s >= 3600)
        snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else
        snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

static void progress_line(Progress *p, const TrainStats *s, long long steps, int force)
{
    double t = tf_seconds();
    p->avg_step = p->avg_step > 0 ? 0.95 * p->avg_step + 0.05 * s->seconds : s->seconds;
    if (!force && p->tty && t - p->t_last_print < 0.25)
        return;
    p->t_last_print = t;
    char eta[32], held[64];
    fmt_eta(eta, sizeof eta, (double)(steps - s->step) * p->avg_step);
    if (p->exact >= 0)
        snprintf(held, sizeof held, "held-out exact %5.1f%% tok %5.1f%%", 100 * p->exact,
                 100 * p->tok_acc);
    else
        snprintf(held, sizeof held, "held-out  -");
    fprintf(stderr, "%sstep %lld/%lld  loss %.4f  %s  lr %.2e  %.0f tok/s  ETA %s%s",
            p->tty ? "\r" : "", s->step, steps, s->loss, held, s->lr,
            s->tokens / p->avg_step, eta, p->tty ? "\033[K" : "\n");
    fflush(stderr);
}

static void progress_end(Progress *p)
{
    if (p->tty)
        fputc('\n', stderr);
}

/* ---- evaluation and metadata ---- */

typedef struct EvalShow {
    int tty, last_pct;
    double t_last;
} EvalShow;

/* "evaluating 120/500 held-out pairs": on a terminal in place, else a line
 * every quarter. */
static void eval_show(int done, int total, void *user)
{
    EvalShow *e = user;
    int pct = (int)(100LL * done / total);
    double t = tf_seconds();
    if (e->tty ? t - e->t_last < 0.25 && done < total : pct / 25 == e->last_pct / 25)
        return;
    e->t_last = t;
    e->last_pct = pct;
    fprintf(stderr, "%sevaluating: %d/%d held-out pairs%s", e->tty ? "\r" : "", done, total,
            e->tty ? "\033[K" : "\n");
    if (e->tty && done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* 0 when done, 1 after an error (its message in *err, not printed: the
 * caller saves the run first), 2 when a signal stopped it. */
static int eval_held_out(Trainer *t, int max_pairs, int show, EvalStats *s, TfErr *err)
{
    EvalOpts o;
    eval_opts_default(&o);
    o.max_pairs = max_pairs;
    o.label_smoothing = t->o.label_smoothing;
    o.stop = &g_stop;
    EvalShow es = {isatty(2), -100, 0};
    if (show) {
        o.progress = eval_show;
        o.user = &es;
    }
    if (trainer_eval(t, &o, s, err))
        return g_stop ? 2 : 1;
    return 0;
}

static void meta_num(TfModel *m, const char *key, const char *fmt, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    model_meta_set(m, key, buf);
}

/* "{"1": 1, "2": 0.98, ...}": exact match by source length. */
static void meta_by_len(TfModel *m, const EvalStats *s)
{
    char buf[2048];
    size_t at = 0;
    at += (size_t)snprintf(buf + at, sizeof buf - at, "{");
    for (int L = 1; L <= EVAL_MAX_LEN && at < sizeof buf - 40; L++)
        if (s->len_n[L] > 0)
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s\"%d\": %.4f",
                                   at > 1 ? ", " : "", L, (double)s->len_exact[L] / s->len_n[L]);
    snprintf(buf + at, sizeof buf - at, "}");
    model_meta_set(m, "eval_exact_by_len", buf);
}

static void print_eval(const EvalStats *s, int by_len)
{
    printf("held-out %d pairs: exact match %.2f%%, token accuracy %.2f%%, BLEU %.2f, "
           "loss %.4f (nll %.4f)\n", s->n, 100 * s->exact, 100 * s->token_acc, s->bleu,
           s->loss, s->nll);
    if (!by_len)
        return;
    for (int L = 1; L <= EVAL_MAX_LEN; L++)
        if (s->len_n[L] > 0)
            printf("  source length %2d: %4d pairs, exact %.2f%%\n", L, s->len_n[L],
                   100.0 * s->len_exact[L] / s->len_n[L]);
}

/* The command line, with the arguments that hold spaces quoted. */
static void command_line(char *cmd, size_t cap, int argc, char **argv)
{
    size_t at = (size_t)snprintf(cmd, cap, "stepformer");
    for (int i = 0; i < argc && at < cap; i++)
        at += (size_t)snprintf(cmd + at, cap - at, strchr(argv[i], ' ') ? " '%s'" : " %s",
                               argv[i]);
}

static void record_facts(TfModel *m, int argc, char **argv, double seconds,
                         const EvalStats *s, int char_task)
{
    char cmd[4096];
    command_line(cmd, sizeof cmd, argc, argv);
    /* the command that started the run; a resumed run adds its own */
    const char *first = model_meta_get(m, "train_command");
    model_meta_set(m, first && strstr(cmd, " --resume") ? "train_resume_command" : "train_command", cmd);
    const char *prev = model_meta_get(m, "train_time_s");
    meta_num(m, "train_time_s", "%.1f", seconds + (prev ? atof(prev) : 0));
    model_meta_set(m, "trained", "true");
    if (!s)
        return;
    meta_num(m, "eval_pairs", "%.0f", s->n);
    meta_num(m, "eval_exact", "%.4f", s->exact);
    meta_num(m, "eval_token_acc", "%.4f", s->token_acc);
    meta_num(m, "eval_bleu", "%.2f", s->bleu);
    meta_num(m, "eval_loss", "%.4f", s->loss);
    if (char_task)
        meta_by_len(m, s);
}

/* ---- the loop ---- */

typedef struct Run {
    Args *a;
    TfModel m;
    Dataset d;
    Trainer t;
    int has_trainer, has_heldout;
    long long saved_step; /* the step --out holds (0: none saved by this run) */
    double t0;
} Run;

/* Where a run goes when --out cannot take it: $TMPDIR (or /tmp), named
 * after --out. "" when that is --out's own folder. */
static void rescue_path(const char *out, char *buf, size_t cap)
{
    const char *tmp = getenv("TMPDIR"), *slash = strrchr(out, '/');
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(buf, cap, "%s/stepformer-rescue-%s", tmp, slash ? slash + 1 : out);
    struct stat a, b;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    if (stat(tmp, &a) != 0 || (stat(slash == out ? "/" : dir, &b) == 0 && a.st_dev == b.st_dev &&
                               a.st_ino == b.st_ino))
        buf[0] = 0;
}

/* Save to --out. When that fails (a full disk), the run is not lost: with
 * rescue it is saved, optimizer state and all, in the temporary folder
 * instead; else --out's last checkpoint is named. Then the reason. */
static int save_to(Run *r, int with_opt, int rescue, const char *why)
{
    TfErr err, err2;
    const char *out = r->a->out;
    if (trainer_save(&r->t, out, with_opt, &err) == 0) {
        r->saved_step = r->t.step;
        return 0;
    }
    char alt[4200] = "";
    if (rescue)
        rescue_path(out, alt, sizeof alt);
    if (alt[0] && trainer_save(&r->t, alt, 1, &err2) == 0)
        return cli_fail("train", "%s: %s; the run (step %lld) is saved in %s instead: make room, then "
                        "continue with --resume %s --out %s", why, err.msg, r->t.step, alt, alt, out);
    if (r->saved_step > 0)
        return cli_fail("train", "%s: %s; %s still holds step %lld (continue with --resume %s)", why, err.msg,
                        out, r->saved_step, out);
    return cli_fail("train", "%s: %s", why, err.msg);
}

static int save(Run *r, int with_opt, const char *why)
{
    return save_to(r, with_opt, 1, why);
}

static int train_loop(Run *r, int argc, char **argv)
{
    Args *a = r->a;
    Progress p = {isatty(2), tf_seconds(), 0, 0, r->t.step, -1, -1};
    if (r->t.step >= a->steps) {
        fprintf(stderr, "already at step %lld of %lld; nothing to train (raise --steps)\n",
                r->t.step, a->steps);
        return 0;
    }
    while (r->t.step < a->steps && !g_stop) {
        TrainStats s;
        TfErr err;
        if (trainer_step(&r->t, &s, &err)) {
            progress_end(&p);
            cli_fail("train", "%s", err.msg);
            record_facts(&r->m, argc, argv, tf_seconds() - r->t0, NULL, 0);
            if (r->t.step > 0 && save(r, 1, "saving the last good state") == 0)
                fprintf(stderr, "saved the parameters of step %lld to %s\n", r->t.step, a->out);
            return 1;
        }
        int last = s.step == a->steps;
        if (r->has_heldout && a->eval_every > 0 && s.step % a->eval_every == 0 && !last) {
            EvalStats e;
            TfErr eerr;
            int er = eval_held_out(&r->t, a->eval_pairs, 0, &e, &eerr);
            if (er == 2)
                break; /* a signal: finish() saves */
            if (er) { /* the training so far is kept first, then the reason */
                progress_end(&p);
                record_facts(&r->m, argc, argv, tf_seconds() - r->t0, NULL, 0);
                int saved = save(r, 1, "saving after the failed evaluation") == 0;
                cli_fail("train", "evaluation at step %lld: %s%s%s%s", s.step, eerr.msg,
                         saved ? "; the run is saved in " : "", saved ? a->out : "",
                         saved ? " (continue with --resume)" : "");
                return 1;
            }
            p.exact = e.exact;
            p.tok_acc = e.token_acc;
        }
        int log_now = p.tty || s.step % a->log_every == 0 || last || s.step == p.first_step + 1;
        if (log_now)
            progress_line(&p, &s, a->steps, last || (a->eval_every > 0 && s.step % a->eval_every == 0));
        if (a->save_every > 0 && s.step % a->save_every == 0 && !last) {
            record_facts(&r->m, argc, argv, tf_seconds() - r->t0, NULL, 0);
            /* a checkpoint that fails (a full disk) is said, and training
             * goes on: the run is still here, the final save tries again */
            if (save_to(r, 1, 0, "checkpoint") == 0)
                r->t0 = tf_seconds(); /* the time so far is in the file now */
        }
    }
    progress_end(&p);
    return 0;
}

static int finish(Run *r, int argc, char **argv)
{
    Args *a = r->a;
    double seconds = tf_seconds() - r->t0;
    if (g_stop) {
        record_facts(&r->m, argc, argv, seconds, NULL, 0);
        if (save(r, 1, "saving on interrupt"))
            return 1;
        fprintf(stderr, "interrupted at step %lld: saved %s (continue with --resume %s)\n",
                r->t.step, a->out, a->out);
        return 0;
    }
    EvalStats e;
    TfErr eerr;
    int er = r->has_heldout ? eval_held_out(&r->t, a->final_pairs, 1, &e, &eerr) : 0;
    if (er == 1) { /* save first, always; then report */
        record_facts(&r->m, argc, argv, seconds, NULL, 0);
        if (save(r, !a->weights_only, "saving"))
            return 1;
        printf("trained %lld steps: %s (no held-out figures)\n", r->t.step, a->out);
        fflush(stdout);
        return cli_fail("train", "the final evaluation failed, the model is saved in %s: %s", a->out,
                        eerr.msg);
    }
    if (er == 2) { /* stopped during the final evaluation: the training is kept */
        if (isatty(2))
            fputc('\n', stderr);
        record_facts(&r->m, argc, argv, seconds, NULL, 0);
        if (save(r, 1, "saving on interrupt"))
            return 1;
        fprintf(stderr, "interrupted during the final evaluation: saved %s (step %lld, "
                "no held-out figures)\n", a->out, r->t.step);
        return 0;
    }
    int char_task = r->d.src.mode == TOK_CHAR;
    record_facts(&r->m, argc, argv, seconds, r->has_heldout ? &e : NULL, char_task);
    if (save(r, !a->weights_only, "saving"))
        return 1;
    const char *total = model_meta_get(&r->m, "train_time_s");
    printf("trained %lld steps in %s s: %s\n", r->t.step, total ? total : "?", a->out);
    if (r->has_heldout)
        print_eval(&e, char_task);
    return 0;
}

static int setup(Run *r)
{
    Args *a = r->a;
    const char *C = "train";
    TfErr err;
    CkptOptim opt = {0};
    int rc = 1;
    /* a missing or read-only folder is found now, not after the training */
    if (tf_atomic_probe(a->out, &err)) {
        cli_fail(C, "--out %s", err.msg);
        goto done;
    }
    if (a->resume) {
        if (ckpt_load_full(&r->m, &opt, a->resume, &err)) {
            cli_fail(C, "%s", err.msg);
            goto done;
        }
        if (!opt.m) {
            cli_fail(C, "%s holds no optimizer state (saved with --weights-only?); "
                     "it cannot be resumed", a->resume);
            goto done;
        }
        if (resume_opts(a, &r->m) || cli_data_from_meta(&a->data, &r->m, C))
            goto done;
    }
    if (!a->data.max_len) { /* TSV lines must fit the model (with <bos>) */
        TfConfig pc;
        int max_len = a->resume ? r->m.cfg.max_len : a->max_len;
        if (!max_len)
            max_len = cfg_preset(&pc, a->preset ? a->preset : "classroom", &err) ? 64 : pc.max_len;
        a->data.max_len = max_len - 1;
    }
    if (cli_data_load(&r->d, &a->data, C))
        goto done;
    if (!a->resume && new_model(&r->m, a, &r->d))
        goto done;
    if (trainer_init(&r->t, &r->m, &r->d, &a->o, &err)) {
        cli_fail(C, "%s", err.msg);
        goto done;
    }
    r->has_trainer = 1;
    if (a->resume && trainer_restore(&r->t, &opt, &err)) {
        cli_fail(C, "%s", err.msg);
        goto done;
    }
    if (a->resume && strcmp(a->resume, a->out) == 0)
        r->saved_step = r->t.step;
    if (cli_data_to_meta(&a->data, &r->d, &r->m, C))
        goto done;
    /* room for a checkpoint (parameters and Adam's two moments, and the
     * header's vocabularies) while the old file still exists */
    unsigned long long bytes = 3ULL * r->m.n_params * sizeof(float) + (1ULL << 20);
    if (tf_atomic_room(a->out, bytes, &err)) {
        cli_fail(C, "--out %s", err.msg);
        goto done;
    }
    fprintf(stderr, "%s %s: %zu parameters (%d/%d/%d, %d+%d layers, %s-LN), %d training "
            "and %d held-out pairs, from step %lld to %lld\n",
            a->resume ? "resuming" : "training", a->data.task ? a->data.task : a->data.file,
            r->m.n_params, r->m.cfg.d_model, r->m.cfg.n_heads, r->m.cfg.d_ff,
            r->m.cfg.n_enc, r->m.cfg.n_dec, r->m.cfg.norm == TF_NORM_PRE ? "pre" : "post",
            r->d.n_train, r->d.n_pairs - r->d.n_train, r->t.step, a->steps);
    r->has_heldout = r->d.n_pairs > r->d.n_train;
    if (!r->has_heldout)
        fprintf(stderr, "only %d usable pair%s: training without a held-out set (no evaluation)\n",
                r->d.n_pairs, r->d.n_pairs == 1 ? "" : "s");
    rc = 0;
done:
    ckpt_optim_free(&opt);
    return rc;
}

int cmd_train(int argc, char **argv)
{
    Args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    Run r;
    memset(&r, 0, sizeof r);
    r.a = &a;
    r.t0 = tf_seconds();
    g_stop = g_signals = 0;
    rc = setup(&r);
    if (rc == 0) {
        /* the handlers stay until the program ends: a second signal that
         * arrives while the run is being saved, or just after, must not
         * kill a run that has been saved (only a third one does) */
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        rc = train_loop(&r, argc, argv);
        if (rc == 0)
            rc = finish(&r, argc, argv);
    }
    if (r.has_trainer)
        trainer_free(&r.t);
    model_free(&r.m);
    dataset_free(&r.d);
    return rc;
}
