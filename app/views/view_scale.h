/* view_scale.h - the "scale" view (view_scale.c): why the scores are
 * divided by √d_k, as histograms of q·k. The pieces a test can check. */
#ifndef APP_VIEW_SCALE_H
#define APP_VIEW_SCALE_H
#include <stdint.h>

#define SCALE_BINS 32

/* The standard deviation of x[0..n) about its mean (0 for n < 2). */
double scale_std(const float *x, int n);
/* Counts of x[0..n) in `bins` equal bins over [lo, hi); values outside go
 * to the first or last bin, so the counts add up to n. */
void scale_hist(const float *x, int n, float lo, float hi, int bins, int *counts);

/* The six histograms drawn (rows: this head, random d_k = 8, random d_k =
 * 64; columns: q·k, q·k/√d_k). For tests: what histogram h (0..5) last
 * drew: the values it counted, the sum of its bars' counts, and the std
 * printed under it. Returns 0 when it has not been drawn. */
int view_scale_drawn(const void *scale_state, int h, int *n, int *bar_sum, double *std);
#endif
