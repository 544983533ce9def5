/* session_pace.c - the budget a frame or idle call of the window runs the
 * pass within (session.h): what its pieces cost, and starting a
 * decoding a piece at a time, from the shown pass's encoder output when it
 * is the same computation. */
#include <string.h>

#include "session.h"

/* ---- what the pieces cost ----
 *
 * The budget counts weight reads, as for a decoding step (kv_step_bytes):
 * at one row a product is bound by reading its weights, at many by the
 * arithmetic. A piece over R rows costs its weight bytes times (1 + R/16):
 * a FLOP counts 1/8 byte (on a base model a decoding step, 164 MB of
 * weights, takes about as long as 1 GFLOP of sgemm). */
static double rows_cost(double weight_bytes, double rows)
{
    return weight_bytes * (1.0 + rows / 16.0);
}

double ses_enc_layer_cost(const TfConfig *c, int rows)
{
    double C = c->d_model, F = c->d_ff;
    return rows_cost(4.0 * (4 * C * C + 2 * C * F), rows);
}

double ses_dec_layer_cost(const TfConfig *c, int rows, int src_rows)
{
    double C = c->d_model, F = c->d_ff;
    return rows_cost(4.0 * (6 * C * C + 2 * C * F), rows) + rows_cost(4.0 * 2 * C * C, src_rows);
}

double ses_out_cost(const TfConfig *c, int rows)
{
    return rows_cost(4.0 * c->d_model * c->tgt_vocab, rows);
}

/* Pieces of the output are whole tiles of the sgemm kernels (16 rows, from
 * a multiple of 16), so their rows are the whole's bits (model.h). */
enum { OUT_TILE = 16 };

int ses_out_chunk(const TfConfig *c)
{
    double cap = kv_step_bytes(c) > SES_DEC_FRAME_BYTES ? kv_step_bytes(c) : SES_DEC_FRAME_BYTES;
    double r = (cap / (4.0 * c->d_model * c->tgt_vocab) - 1) * 16; /* ses_out_cost(c, r) <= cap */
    int n = r < OUT_TILE ? 1 : r > SES_CAP_T ? SES_CAP_T / OUT_TILE : (int)(r / OUT_TILE);
    return n * OUT_TILE;
}

/* The positions of sentence done / T the next piece takes (all of the
 * sentence's rest unless budgeted). */
static int out_rows(const TfConfig *c, const TfTrace *tr, int done, int may)
{
    int left = tr->T - done % tr->T, r = may == SES_BUDGET ? ses_out_chunk(c) : left;
    return r < left ? r : left;
}

double ses_out_piece_cost(const TfConfig *c, const TfTrace *tr, int done, int may)
{
    return ses_out_cost(c, out_rows(c, tr, done, may));
}

void ses_out_piece(const TfModel *m, TfTrace *tr, int *done, int may)
{
    int r = out_rows(&m->cfg, tr, *done, may), from = *done % tr->T;
    tf_decode_end_rows(m, tr, *done / tr->T, from, from + r);
    *done += r;
}

int ses_fits(int may, double spent, double cost)
{
    return may != SES_BUDGET || spent <= 0 || spent + cost <= SES_DEC_FRAME_BYTES;
}

double ses_budget_left(int may, double spent)
{
    if (may != SES_BUDGET)
        return 0;
    return spent < SES_DEC_FRAME_BYTES ? SES_DEC_FRAME_BYTES - spent : 1;
}

/* The shown pass's encoder output when it is exactly sentence i's alone
 * under exp (one sentence, no padding, its encoder computed) and the
 * decoder can take it (the key/value cache applies), else NULL. */
static const float *pass_memory(const Session *s, int i, const TfExperiment *exp)
{
    const TfTrace *tr = &s->trace;
    if (s->n_src != 1 || i != 0 || s->input_error[0] || s->units_done <= s->model.cfg.n_enc || tr->B != 1 ||
        tr->S != s->src_n[0] || !tf_exp_equal(&tr->exp, exp) ||
        memcmp(tr->src_ids, s->src_ids[0], (size_t)tr->S * sizeof(int)) != 0 ||
        !kv_supported(exp)) /* without the cache the decoder encodes again itself */
        return NULL;
    return tr->memory;
}

/* The encoder pieces of a sentence encoded for its decoding: a layer each
 * (the embeddings go with the first). */
static int enc_pieces(const TfConfig *c) { return c->n_enc > 0 ? c->n_enc : 1; }

double ses_dec_begin_cost(const Session *s, int i, const TfExperiment *exp, int enc)
{
    const TfConfig *c = &s->model.cfg;
    if (enc == 0 ? !pass_memory(s, i, exp) : enc < enc_pieces(c))
        return ses_enc_layer_cost(c, s->src_n[i]);
    return rows_cost(4.0 * 2 * c->d_model * c->d_model * c->n_dec, s->src_n[i]);
}

int ses_dec_begin(Session *s, TfDecoder *d, int i, const DecodeOpts *o, int keep, int *enc, TfErr *err)
{
    const TfModel *m = &s->model;
    TfTrace *tr = &s->scratch;
    const float *mem = *enc == 0 ? pass_memory(s, i, &tr->exp) : *enc >= enc_pieces(&m->cfg) ? tr->memory : NULL;
    if (!mem) { /* the sentence's encoder in scratch, a layer a piece */
        if (*enc == 0 && tf_encode_begin(m, tr, 1, s->src_n[i], s->src_ids[i], &s->src_n[i], 0, err))
            return -1;
        if (*enc < m->cfg.n_enc)
            tf_encode_layer(m, tr, *enc, 0);
        ++*enc;
        return 0;
    }
    *enc = 0;
    return tf_dec_start_from(d, m, tr, s->src_ids[i], s->src_n[i], o, keep, mem, err) ? -1 : 1;
}
