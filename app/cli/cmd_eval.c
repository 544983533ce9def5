/* cmd_eval.c - `stepformer eval`: how well a model translates the held-out
 * pairs of a task or a file: exact match, token accuracy, corpus BLEU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "bleu.h"
#include "cli_data.h"
#include "commands.h"
#include "decode.h"
#include "file.h"
#include "text.h"
#include "train.h"

static const char *HELP =
    "usage: stepformer eval --model FILE [--task NAME | --data FILE] [--beam K]\n"
    "                       [--alpha A] [--pairs N] [--threads N]\n"
    "                       [--tokens word|char] [--task-len N] [--data-seed N]\n"
    "\n"
    "Evaluate a model on the held-out pairs of a data set - sentences it did\n"
    "not train on - and print exact-match accuracy (the decoded translation\n"
    "equals the reference), token accuracy (teacher forced: the most probable\n"
    "next token is the right one, <eos> included), corpus BLEU-4 (the paper's\n"
    "metric), the loss, and exact match by source length.\n"
    "\n"
    "Without --task/--data the model's own training data is used (its metadata\n"
    "says which, with the seed that fixes the held-out split). Decoding is\n"
    "greedy unless --beam K (length penalty alpha, 0.6 by default). --pairs N\n"
    "evaluates the first N held-out pairs only.\n"
    "\n"
    "A MarianMT / OPUS-MT folder (--model DIR) is evaluated on every line of\n"
    "--data FILE.tsv (\"source<TAB>reference\"), both sides tokenized by its\n"
    "sentencepiece models: exact match of the output text, token accuracy\n"
    "(teacher forced over the reference's pieces, </s> included) and BLEU over\n"
    "target.spm pieces. --data - reads the lines from standard input; a FIFO\n"
    "or a device as --data FILE is refused.\n";

/* ---- a MarianMT folder: its own tokenizer over a TSV file ---- */

typedef struct MarEval {
    int n, exact, tok_right, tok_n, bad;
    BleuStats bleu; /* summed line by line */
} MarEval;

/* Teacher forcing over start + the reference: positions whose argmax is the
 * next reference piece (</s> after the last). */
static int mar_forced(const TfModel *m, TfTrace *tr, const int *src, int S, const int *ref, int R, MarEval *e,
                      TfErr *err)
{
    int tgt[TF_MAX_LEN], T = R + 1, V = m->cfg.tgt_vocab;
    tgt[0] = cfg_start_id(&m->cfg);
    memcpy(tgt + 1, ref, (size_t)R * sizeof *ref);
    TfBatch b = {1, S, T, src, tgt, &S, &T};
    if (tf_forward(m, tr, &b, 0, err))
        return -1;
    for (int t = 0; t < T; t++) {
        const float *z = tr->logits + (size_t)t * V;
        int best = 0;
        for (int v = 1; v < V; v++)
            best = z[v] > z[best] ? v : best;
        e->tok_right += best == (t < R ? ref[t] : cfg_eos_id(&m->cfg));
        e->tok_n++;
    }
    return 0;
}

/* One "source<TAB>reference" line: translated, compared, counted. */
static int mar_line(const TfModel *m, TfTrace *tr, const DecodeOpts *o, char *line, MarEval *e, TfErr *err)
{
    char *tab = strchr(line, '\t');
    int src[TF_MAX_LEN], ref[TF_MAX_LEN], max = m->cfg.max_len < TF_MAX_LEN ? m->cfg.max_len : TF_MAX_LEN;
    if (!tab) {
        e->bad++;
        return 0;
    }
    *tab = 0;
    char *want = tab + 1;
    want[strcspn(want, "\r\n")] = 0;
    int S = tf_text_ids(m, 0, line, src, NULL, max, NULL, err);
    int R = tf_text_ids(m, 1, want, ref, NULL, max - 1, NULL, err);
    if (S < 0 || R < 0)
        return -1;
    if (S <= 1 || S > max || R > max - 2) {
        e->bad++;
        return 0;
    }
    DecodeResult r;
    if (tf_translate(m, tr, src, S, o, &r, err))
        return -1;
    int H = 0;
    while (H < r.n && r.ids[H] != cfg_eos_id(&m->cfg))
        H++;
    char *text = NULL;
    tf_text_decode(m, r.ids, r.n, &text, err);
    e->exact += text && !strcmp(text, want);
    free(text);
    bleu_stats_add(&e->bleu, r.ids, H, ref, R);
    e->n++;
    decode_result_free(&r);
    return mar_forced(m, tr, src, S, ref, R, e, err);
}

/* eval of a MarianMT folder: every line of --data (it was not trained on
 * ours), tokenized by its sentencepiece models. */
static int eval_marian(const TfModel *m, const char *model, const DataArgs *da, const EvalOpts *eo, const char *C)
{
    if (!da->file)
        return cli_fail(C, "a MarianMT model is evaluated on --data FILE.tsv (\"source<TAB>reference\" lines)");
    /* a regular file (a FIFO or a device is refused, as by the other
     * loaders), or "-": standard input as a stream of bounded lines */
    TfErr ferr;
    int is_stdin = strcmp(da->file, "-") == 0;
    FILE *f = is_stdin ? stdin : tf_fopen_regular(da->file, NULL, &ferr);
    if (!f)
        return cli_fail(C, "%s", ferr.msg);
    DecodeOpts o;
    decode_opts_default(&o);
    o.beam = eo->beam;
    o.alpha = eo->alpha;
    TfTrace tr;
    TfErr err;
    MarEval e;
    memset(&e, 0, sizeof e);
    int rc = trace_build(&tr, &m->cfg, o.beam, 8, 0, &err) ? cli_fail(C, "%s", err.msg) : 0, built = !rc;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long no = 0;
    while (!rc && (!eo->max_pairs || e.n < eo->max_pairs) && (got = tf_read_line(f, &line, &cap, TF_LINE_MAX)) != -1) {
        no++;
        if (got < 0 && got != TF_LINE_LONG) { /* NUL, endless, memory: at once */
            char why[96];
            rc = cli_fail(C, "%s:%ld: %s", is_stdin ? "<stdin>" : da->file, no, tf_line_error(got, TF_LINE_MAX, why, sizeof why));
        } else if (got == TF_LINE_LONG ? (e.bad++, 0) : mar_line(m, &tr, &o, line, &e, &err)) {
            rc = cli_fail(C, "%s", err.msg);
        }
    }
    if (!is_stdin)
        fclose(f);
    free(line);
    if (built)
        trace_free(&tr);
    if (!rc && e.bad)
        cli_warn(C, "%s: skipped %d line%s (no tab, empty, or longer than max_position_embeddings)", da->file,
                 e.bad, e.bad == 1 ? "" : "s");
    if (!rc && !e.n)
        rc = cli_fail(C, "%s: no \"source<TAB>reference\" line to evaluate", da->file);
    if (!rc) {
        printf("model %s on %s, %d pairs, %s decoding, its sentencepiece tokenizer\n", model, da->file, e.n,
               o.beam > 1 ? "beam" : "greedy");
        printf("exact match     %.2f%%\n", 100.0 * e.exact / e.n);
        printf("token accuracy  %.2f%%\n", e.tok_n ? 100.0 * e.tok_right / e.tok_n : 0.0);
        printf("BLEU            %.2f (over target.spm pieces)\n",
               bleu_from_stats(&e.bleu));
    }
    return rc ? 1 : 0;
}

int cmd_eval(int argc, char **argv)
{
    const char *C = "eval", *model = NULL;
    DataArgs da;
    EvalOpts o;
    data_args_init(&da);
    eval_opts_default(&o);
    const CliOpt opts[] = {
        CLI_STR_OPT("model", &model), CLI_INT_OPT("beam", &o.beam, 1, 64), CLI_NUM_OPT("alpha", &o.alpha, 0, 10),
        CLI_INT_M("pairs", &o.max_pairs, 1, 100000000, "--pairs must be a positive integer, not '%s'"),
        CLI_INT_M("threads", &o.threads, 1, TRAIN_SHARDS, "--threads must be 1..2, not '%s'"),
    };
    _Static_assert(TRAIN_SHARDS == 2, "the --threads message says 1..2");
    int rc = cli_parse(argc, argv, opts, CLI_N(opts), cli_data_more, &da, C, HELP);
    if (rc)
        return rc < 0 ? 0 : 1;
    if (!model)
        return cli_fail(C, "--model FILE is required");
    if (da.task && da.file)
        return cli_fail(C, "give --task or --data, not both");
    TfModel m;
    if (cli_load_model(&m, model, C))
        return 1;
    if (m.cfg.kind == TF_KIND_MARIAN && m.tok) {
        rc = eval_marian(&m, model, &da, &o, C);
        model_free(&m);
        return rc;
    }
    Dataset d;
    memset(&d, 0, sizeof d);
    rc = 1;
    if (!da.has_modes) { /* a file is read the way the model reads text */
        da.src_mode = m.src_vocab.mode;
        da.tgt_mode = m.tgt_vocab.mode;
    }
    if (cli_data_from_meta(&da, &m, C))
        goto done;
    da.max_len = m.cfg.max_len - 1;
    if (cli_data_load(&d, &da, C))
        goto done;
    if (d.n_pairs <= d.n_train) { /* e.g. a file of a header line only */
        cli_fail(C, "%s: %d usable pair%s, none held out to evaluate (the held-out tenth "
                 "needs 2 pairs or more)", da.file ? da.file : da.task, d.n_pairs,
                 d.n_pairs == 1 ? "" : "s");
        goto done;
    }
    const char *ls = model_meta_get(&m, "train_label_smoothing");
    if (ls)
        o.label_smoothing = (float)atof(ls);
    EvalStats s;
    TfErr err;
    if (tf_evaluate(&m, &d, &o, &s, &err)) {
        cli_fail(C, "%s", err.msg);
        goto done;
    }
    if (s.unk_src > 0)
        cli_warn(C, "%d source tokens of %s are not in the model's vocabulary (read as <unk>)",
                 s.unk_src, d.name);
    printf("model %s on %s, %d held-out pairs, %s decoding\n", model, d.name, s.n,
           o.beam > 1 ? "beam" : "greedy");
    printf("exact match     %.2f%%\n", 100 * s.exact);
    printf("token accuracy  %.2f%%\n", 100 * s.token_acc);
    printf("BLEU            %.2f\n", s.bleu);
    printf("loss            %.4f (label smoothing %g; without: %.4f)\n", s.loss,
           (double)o.label_smoothing, s.nll);
    printf("exact match by source length:\n");
    for (int L = 1; L <= EVAL_MAX_LEN; L++)
        if (s.len_n[L] > 0)
            printf("  %2d%s tokens: %5.1f%% of %d\n", L, L == EVAL_MAX_LEN ? "+" : "",
                   100.0 * s.len_exact[L] / s.len_n[L], s.len_n[L]);
    rc = 0;
done:
    model_free(&m);
    dataset_free(&d);
    return rc;
}
