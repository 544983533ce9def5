/* loss.c - cross-entropy with label smoothing (see train.h for the exact
 * target distribution).
 *
 * Section 5.4 of the paper: "During training, we employed label smoothing
 * of value eps_ls = 0.1. This hurts perplexity, as the model learns to be
 * more unsure, but improves accuracy and BLEU score." The true token gets
 * 1 - eps of the target mass; the rest is spread evenly over the other
 * tokens except <pad>, which is never a target.
 *
 * With q that distribution and p = softmax(z) over the logits z,
 *
 *     loss = -sum_k q(k) log p(k) = lse(z) - sum_k q(k) z(k)      (sum q = 1)
 *
 * where lse(z) = log sum_k exp z(k); and dloss/dz(k) = p(k) - q(k). */
#include <math.h>

#include "train.h"
#include "vocab.h"

/* Weight of each non-true, non-pad token in q. */
static double off_mass(int V, float eps)
{
    return V > 2 ? (double)eps / (V - 2) : 0.0;
}

double loss_forward(float *pos_loss, const float *logits, const float *probs,
                    const int *target, int N, int V, float eps, int *n_scored,
                    int *n_correct)
{
    double total = 0, off = off_mass(V, eps), on = 1.0 - eps;
    int scored = 0, correct = 0;
    for (int t = 0; t < N; t++) {
        int y = target[t];
        if (y == TOK_PAD) {
            if (pos_loss)
                pos_loss[t] = 0;
            continue;
        }
        const float *z = logits + (size_t)t * V, *p = probs + (size_t)t * V;
        int top = 0;
        double zsum = 0;
        for (int k = 0; k < V; k++) {
            zsum += z[k];
            if (z[k] > z[top])
                top = k;
        }
        /* p(top) = exp(z(top) - lse), so lse = z(top) - log p(top): the
         * softmax of the forward pass already summed the exponentials. */
        double lse = z[top] - log((double)p[top]);
        /* sum_k q(k) z(k) = on * z(y) + off * (sum of z over k != y, <pad>) */
        double qz = on * z[y] + off * (zsum - z[y] - z[TOK_PAD]);
        double l = lse - qz;
        if (pos_loss)
            pos_loss[t] = (float)l;
        total += l;
        scored++;
        correct += top == y;
    }
    if (n_scored)
        *n_scored = scored;
    if (n_correct)
        *n_correct = correct;
    return total;
}

void loss_backward(float *dlogits, const float *probs, const int *target,
                   int N, int V, float eps, float scale)
{
    float off = (float)off_mass(V, eps), on = 1.0f - eps;
    for (int t = 0; t < N; t++) {
        int y = target[t];
        if (y == TOK_PAD)
            continue;
        float *d = dlogits + (size_t)t * V;
        const float *p = probs + (size_t)t * V;
        /* dloss/dz(k) = p(k) - q(k): first as if every q(k) were off ... */
        for (int k = 0; k < V; k++)
            d[k] += scale * (p[k] - off);
        /* ... then correct the two exceptions, q(y) = on and q(<pad>) = 0 */
        d[y] += scale * (off - on);
        d[TOK_PAD] += scale * off;
    }
}
