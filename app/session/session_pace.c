/* session_pace.c - the budget a frame or idle call of the window runs the
 * pass within (session.h): what its pieces cost, and starting a
 * decoding a piece at a time, from the shown pass's encoder output when it
 * is the same computation. */
#include <string.h>

#include "session.h"
#include "session_int.h"

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

/* ---- a whole pass a piece at a time ---- */

void ses_pass_start(SesPass *p, const TfBatch *in)
{
    p->in = *in;
    p->unit = p->out_rows = 0;
    p->may = SES_BUDGET;
    p->pieces = 0;
    p->bytes = 0;
}

/* Units: the source embeddings, n_enc encoder layers, the target
 * embeddings, n_dec decoder layers, the output (some rows a piece). */
static int pass_units(const TfConfig *c) { return c->n_enc + c->n_dec + 3; }

int ses_pass_done(const TfModel *m, const SesPass *p)
{
    return p->unit >= pass_units(&m->cfg);
}

void ses_pass_progress(const TfModel *m, const SesPass *p, int *done, int *total)
{
    *done = p->unit;
    *total = pass_units(&m->cfg);
}

double ses_unit_cost(const TfConfig *c, int u, int B, int S, int T)
{
    if (u >= 1 && u <= c->n_enc)
        return ses_enc_layer_cost(c, B * S);
    if (u >= c->n_enc + 2 && u < pass_units(c) - 1)
        return ses_dec_layer_cost(c, B * T, B * S);
    return 0; /* an embedding lookup */
}

double ses_pass_piece_cost(const TfModel *m, const TfTrace *tr, const SesPass *p)
{
    const TfConfig *c = &m->cfg;
    if (p->unit == pass_units(c) - 1)
        return ses_out_piece_cost(c, tr, p->out_rows, p->may);
    return ses_unit_cost(c, p->unit, p->in.B, p->in.S, p->in.T);
}

int ses_pass_piece(const TfModel *m, TfTrace *tr, SesPass *p, TfErr *err)
{
    int u = p->unit, n_enc = m->cfg.n_enc;
    if (u >= pass_units(&m->cfg))
        return 0;
    p->pieces++;
    if (u == pass_units(&m->cfg) - 1) { /* the output, some rows a piece */
        ses_out_piece(m, tr, &p->out_rows, p->may);
        if (p->out_rows >= tr->B * tr->T)
            p->unit++;
        return 0;
    }
    p->unit++;
    if (u == 0) {
        if (tf_check_batch(m, tr, &p->in, err))
            return -1;
        return tf_encode_begin(m, tr, p->in.B, p->in.S, p->in.src, p->in.src_len, 0, err);
    }
    if (u <= n_enc)
        tf_encode_layer(m, tr, u - 1, 0);
    else if (u == n_enc + 1)
        return tf_decode_begin(m, tr, p->in.T, p->in.tgt, p->in.tgt_len, 0, err);
    else
        tf_decode_layer(m, tr, u - n_enc - 2, 0);
    return 0;
}

int ses_pass_run(const TfModel *m, TfTrace *tr, SesPass *p, int may, double *spent, TfErr *err)
{
    p->may = may; /* all at once: the output in one piece, as tf_forward */
    while (!ses_pass_done(m, p)) {
        double cost = ses_pass_piece_cost(m, tr, p);
        if (!ses_fits(may, *spent, cost))
            return 0;
        *spent += cost > 0 ? cost : 0;
        p->bytes += cost > 0 ? cost : 0;
        if (ses_pass_piece(m, tr, p, err))
            return -1;
    }
    return 1;
}
