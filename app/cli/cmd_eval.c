/* cmd_eval.c - `stepformer eval`: how well a model translates the held-out
 * pairs of a task or a file: exact match, token accuracy, corpus BLEU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_data.h"
#include "commands.h"
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
    "evaluates the first N held-out pairs only.\n";

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
