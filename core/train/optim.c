/* optim.c - the learning-rate schedule, gradient norms and Adam (train.h).
 *
 * Section 5.3 of the paper: "We used the Adam optimizer with beta1 = 0.9,
 * beta2 = 0.98 and eps = 1e-9. We varied the learning rate over the course
 * of training, according to the formula
 *     lrate = d_model^-0.5 * min(step_num^-0.5, step_num * warmup_steps^-1.5)
 * This corresponds to increasing the learning rate linearly for the first
 * warmup_steps training steps, and decreasing it thereafter proportionally
 * to the inverse square root of the step number." */
#include <math.h>

#include "train.h"

double lr_schedule(int d_model, int warmup, double scale, long long step)
{
    if (step < 1)
        step = 1;
    if (warmup < 1)
        warmup = 1;
    double s = (double)step, w = (double)warmup;
    double a = 1.0 / sqrt(s), b = s * pow(w, -1.5);
    return scale / sqrt((double)d_model) * (a < b ? a : b);
}

double grad_sumsq(const float *g, size_t n)
{
    /* four partial sums: a dependency chain per lane instead of one */
    double s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += (double)g[i + k] * g[i + k];
    for (; i < n; i++)
        s[0] += (double)g[i] * g[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

void adam_update(float *p, const float *g, float *m, float *v, size_t n,
                 const AdamHyper *h, float lr, float gscale, long long t)
{
    float b1 = h->beta1, b2 = h->beta2, eps = h->eps;
    /* bias corrections 1 - beta^t, folded into two multipliers */
    float c1 = (float)(1.0 / (1.0 - pow(b1, (double)t)));
    float c2 = (float)(1.0 / (1.0 - pow(b2, (double)t)));
    for (size_t i = 0; i < n; i++) {
        float gi = g[i] * gscale;
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        /* p -= lr * m_hat / (sqrt(v_hat) + eps);  v_hat >= 0 */
        p[i] -= lr * (mi * c1) / (__builtin_sqrtf(vi * c2) + eps);
    }
}
