/* torch_ref.h - PyTorch's numbers for the engine tests: reads a fixture
 * written by tools/torch_reference.py (or tools/torch_model.py), runs the
 * same padded batch through the engine with the same experiment, and
 * compares the logits (relative 1e-3) and every head's attention weights
 * (absolute 1e-4) on real query rows.
 *
 * A fixture may start with "experiment FLAG..." (no-scale, no-pe,
 * no-causal, ablate=K:L:H, hide-src=I, no-residual, no-ffn=K:L): the engine's pass then gets the same
 * TfExperiment. A query row whose every key is hidden is NaN in PyTorch
 * (softmax over -inf only); the engine's weights there must be exactly 0
 * (and the sentence's logits finite), which is how implementations avoid
 * the NaN. */
#ifndef TEST_TORCH_REF_H
#define TEST_TORCH_REF_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_open.h"
#include "test_util.h"

#define FIX "tests/fixtures/torch/"

typedef struct TorchRef {
    TfExperiment exp;
    int B, S, T;
    int src[64], tgt[64], src_len[8], tgt_len[8];
    float *logits;
    float *w[3][8]; /* enc.self, dec.self, dec.cross weights per layer */
} TorchRef;

/* "key" and n integers after it into out; 0, or -1 when they are not there */
static inline int tr_read_ints(FILE *f, const char *key, int *out, int n)
{
    char word[64];
    if (fscanf(f, "%63s", word) != 1 || strcmp(word, key) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (fscanf(f, "%d", &out[i]) != 1)
            return -1;
    return 0;
}

static inline float *tr_read_floats(FILE *f, size_t n)
{
    float *x = malloc(n * sizeof *x);
    char word[32];
    for (size_t i = 0; x && i < n; i++) {
        if (fscanf(f, "%31s", word) != 1) {
            free(x);
            return NULL;
        }
        x[i] = strcmp(word, "nan") == 0 ? NAN : strtof(word, NULL);
    }
    return x;
}

/* "experiment no-scale ablate=enc:0:1 ..." into r->exp */
static inline void tr_read_experiment(FILE *f, TorchRef *r, const TfConfig *c)
{
    char line[512];
    if (!fgets(line, sizeof line, f))
        return;
    TfErr err;
    for (char *w = strtok(line + strlen("experiment"), " \n"); w; w = strtok(NULL, " \n")) {
        if (strcmp(w, "no-scale") == 0)
            r->exp.no_scale = 1;
        else if (strcmp(w, "no-pe") == 0)
            r->exp.no_pe = 1;
        else if (strcmp(w, "no-causal") == 0)
            r->exp.no_causal = 1;
        else if (strcmp(w, "no-residual") == 0)
            r->exp.no_residual = 1;
        else if (strncmp(w, "no-ffn=", 7) == 0)
            expect_true(tf_exp_add_ffn(&r->exp, w + 7, c, &err) == 0, "%s", err.msg);
        else if (strncmp(w, "ablate=", 7) == 0)
            expect_true(tf_exp_add_head(&r->exp, w + 7, c, &err) == 0, "%s", err.msg);
        else if (strncmp(w, "hide-src=", 9) == 0)
            expect_true(tf_exp_add_hide(&r->exp, w + 9, c, &err) == 0, "%s", err.msg);
        else
            expect_true(0, "unknown experiment word '%s'", w);
    }
}

static inline void torch_ref_load(TorchRef *r, const char *path, const TfConfig *c)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    expect_true(f != NULL, "fixture %s opens", path);
    char word[64];
    int ch = getc(f);
    ungetc(ch, f);
    if (ch == 'e')
        tr_read_experiment(f, r, c);
    expect_true(fscanf(f, "batch %d %d %d", &r->B, &r->S, &r->T) == 3, "batch line");
    expect_true(r->B > 0 && r->S > 0 && r->T > 0 && r->B * r->S <= 64 && r->B * r->T <= 64 && r->B <= 8,
                "a batch of %d x %d / %d fits", r->B, r->S, r->T);
    int ok = tr_read_ints(f, "src", r->src, r->B * r->S) == 0 && tr_read_ints(f, "src_len", r->src_len, r->B) == 0 &&
             tr_read_ints(f, "tgt", r->tgt, r->B * r->T) == 0 && tr_read_ints(f, "tgt_len", r->tgt_len, r->B) == 0 &&
             fscanf(f, "%63s", word) == 1 && strcmp(word, "logits") == 0;
    expect_true(ok, "fixture header parses");
    r->logits = tr_read_floats(f, (size_t)r->B * r->T * c->tgt_vocab);
    int layer;
    while (fscanf(f, "%63s %d", word, &layer) == 2) {
        int k = strcmp(word, "enc.self.weights") == 0 ? 0 : strcmp(word, "dec.self.weights") == 0 ? 1 : 2;
        int Tq = k == 0 ? r->S : r->T, Tk = k == 1 ? r->T : r->S;
        r->w[k][layer] = tr_read_floats(f, (size_t)r->B * c->n_heads * Tq * Tk);
    }
    fclose(f);
}

static inline void torch_ref_free(TorchRef *r)
{
    free(r->logits);
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 8; l++)
            free(r->w[k][l]);
}

/* Is every real source position of sentence b hidden by the experiment?
 * Then PyTorch's encoder and cross-attention rows are NaN (and the NaN
 * runs through everything after them). */
static inline int tr_all_hidden(const TorchRef *r, int b)
{
    for (int j = 0; j < r->src_len[b]; j++)
        if (!tf_exp_hidden(&r->exp, j))
            return 0;
    return 1;
}

static inline void tr_compare_weights(const TorchRef *r, const TfTrace *tr, const TfConfig *c)
{
    static const char *const names[3] = {"enc.self.weights", "dec.self.weights", "dec.cross.weights"};
    int NH = c->n_heads;
    for (int k = 0; k < 3 && r->w[0][0]; k++) {
        int L = k == 0 ? c->n_enc : c->n_dec;
        int Tq = k == 0 ? r->S : r->T, Tk = k == 1 ? r->T : r->S;
        for (int l = 0; l < L; l++) {
            const float *mine = k == 0 ? tr->enc[l].sa.weights : k == 1 ? tr->dec[l].sa.weights : tr->dec[l].ca.weights;
            double w = 0;
            int zero_rows = 0;
            /* every cell of real query rows (padded query rows are ignored by
             * the model and PyTorch's values there are not meaningful) */
            for (int bi = 0; bi < r->B; bi++) {
                int nq = k == 0 ? r->src_len[bi] : r->tgt_len[bi];
                int none = tr_all_hidden(r, bi);
                if (none && k == 1)
                    continue; /* NaN in PyTorch, from the layers before */
                for (int h = 0; h < NH; h++)
                    for (int i = 0; i < nq; i++) {
                        size_t row = (((size_t)bi * NH + h) * Tq + i) * Tk;
                        if (none) { /* no key to attend to: weights 0, not NaN */
                            zero_rows++;
                            for (int j = 0; j < Tk; j++)
                                expect_true(mine[row + j] == 0.0f, "%s layer %d: a row with no key is 0",
                                            names[k], l);
                            continue;
                        }
                        for (int j = 0; j < Tk; j++)
                            w = fmax(w, fabs(mine[row + j] - r->w[k][l][row + j]));
                    }
            }
            printf("  %s layer %d: max |diff| = %.3g (limit 1e-4)%s\n", names[k], l, w,
                   zero_rows ? "; rows with every key hidden are 0 (PyTorch: NaN)" : "");
            expect_true(w <= 1e-4, "%s layer %d matches PyTorch", names[k], l);
        }
    }
}

/* Run the fixture's batch (and experiment) through the model at model_path
 * and compare with PyTorch. */
static inline void torch_compare(const char *model_path, const char *ref_path)
{
    TfModel m;
    TfErr err;
    int rc = tf_model_open(model_path, &m, &err); /* our file or a MarianMT folder */
    expect_true(rc == 0, "model loads: %s", rc ? err.msg : "");
    TorchRef r;
    torch_ref_load(&r, ref_path, &m.cfg);
    TfTrace tr;
    expect_true(trace_build(&tr, &m.cfg, r.B, 8, TRACE_RECORD, &err) == 0, "trace: %s", err.msg);
    tr.exp = r.exp;
    TfBatch b = {r.B, r.S, r.T, r.src, r.tgt, r.src_len, r.tgt_len};
    expect_true(tf_forward(&m, &tr, &b, 0, &err) == 0, "forward: %s", err.msg);
    int V = m.cfg.tgt_vocab;
    double worst = 0, scale = 0;
    for (int bi = 0; bi < r.B; bi++) {
        int nan = tr_all_hidden(&r, bi);
        for (int t = 0; t < r.tgt_len[bi]; t++)
            for (int v = 0; v < V; v++) {
                size_t i = ((size_t)bi * r.T + t) * V + v;
                if (nan) {
                    expect_true(isfinite(tr.logits[i]), "sentence %d: finite logits", bi);
                    continue;
                }
                worst = fmax(worst, fabs(tr.logits[i] - r.logits[i]));
                scale = fmax(scale, fabs(r.logits[i]));
            }
    }
    char what[256];
    tf_exp_describe(&r.exp, what, sizeof what);
    printf("  %s (%s): logits max |diff| / max |ref| = %.3g (limit 1e-3)\n", ref_path, what,
           worst / scale);
    expect_true(worst / scale <= 1e-3, "logits match PyTorch");
    tr_compare_weights(&r, &tr, &m.cfg);
    torch_ref_free(&r);
    trace_free(&tr);
    model_free(&m);
}

#endif
