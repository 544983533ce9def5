/* train_size.c - how much memory a training run of the window needs, and
 * the check that refuses what cannot fit before allocating any of it (see
 * train_size.h). */
#include "train_size.h"

#include <stdio.h>
#include <unistd.h>

#include "train.h"

double tw_bytes_needed(const TfConfig *cfg, int batch, int cap_T)
{
    double P = (double)cfg_param_count(cfg).total;
    double C = cfg->d_model, F = cfg->d_ff, V = cfg->tgt_vocab;
    int cap_B = (batch + TRAIN_SHARDS - 1) / TRAIN_SHARDS;
    double B = cap_B, T = cap_T;
    /* model, gradients of both shards, Adam's two moments, the published
     * copy, the window's two copies, at least two snapshots */
    double params = P * (1 + TRAIN_SHARDS + 2 + 1 + 2 + 2);
    double trace = (double)trace_floats(cfg, cap_B, cap_T, TRACE_RECORD | TRACE_TRAIN);
    double back = B * T * (V + 11 * C + F) + T * T;
    double eval = 2.0 * (double)trace_floats(cfg, 32, cap_T, 0) +
                  2.0 * (double)trace_floats(cfg, 1, cfg->max_len, 0);
    return 4.0 * (params + TRAIN_SHARDS * (trace + back) + eval);
}

/* MemAvailable of /proc/meminfo, else free pages; < 0 when unknown. */
static double mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb > 0)
        return kb * 1024.0;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * size : -1;
}

/* v in the first unit it reaches (units largest first; the last always). */
typedef struct Unit { double scale; const char *fmt; } Unit;
static const Unit BYTES[] = {{1e12, "%.1f TB"}, {1e9, "%.1f GB"}, {1e6, "%.0f MB"}, {0, NULL}};
static const Unit COUNT[] = {{1e9, "%.1f billion"}, {1e6, "%.1f million"}, {1e3, "%.0f thousand"},
                             {0, NULL}};

static void fmt_scaled(char *buf, size_t cap, double v, const Unit *u)
{
    while (u[1].fmt && v < u->scale)
        u++;
    snprintf(buf, cap, u->fmt, v / u->scale);
}

int tw_check_size(const TfConfig *c, int batch, int cap_T, TfErr *err)
{
    if (c->n_heads < 1 || c->d_model < 1 || c->d_model % c->n_heads)
        return tf_fail(err, "d_model %d cannot be split into %d heads: the heads share "
                       "d_model equally, so it must be a multiple of the head count",
                       c->d_model, c->n_heads);
    double need = tw_bytes_needed(c, batch, cap_T), avail = mem_available();
    if (avail > 0 && need > 0.8 * avail) {
        char p[48], n[48], a[48];
        fmt_scaled(p, sizeof p, (double)cfg_param_count(c).total, COUNT);
        fmt_scaled(n, sizeof n, need, BYTES);
        fmt_scaled(a, sizeof a, avail, BYTES);
        return tf_fail(err, "d_model %d with %d+%d layers has %s parameters: training it "
                       "needs about %s of memory and this computer has %s free. "
                       "Choose a smaller size.", c->d_model, c->n_enc, c->n_dec, p, n, a);
    }
    return cfg_validate(c, err);
}
