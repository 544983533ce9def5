/* heads_cli.h - the heads lab on the command line: `stepformer heads
 * --importance` (heads_importance.c) and `stepformer heads --qk-map`
 * (heads_qkmap.c). cmd_heads (cli_exp.c) hands the command line over when
 * one of the two is on it. */
#ifndef APP_HEADS_CLI_H
#define APP_HEADS_CLI_H

/* 1 for --importance, 2 for --qk-map, 0 for neither (the metrics). */
int heads_lab_mode(int argc, char **argv);

int heads_importance_main(int argc, char **argv);
int heads_qkmap_main(int argc, char **argv);

#define HEADS_LAB_USAGE                                                                    \
    "       stepformer heads --importance [--model FILE] [--task NAME | --data FILE.tsv]\n"   \
    "                        [--pairs N] [--threads 1|2] [--json]\n"                          \
    "       stepformer heads --qk-map --part enc|dec|cross --layer L --head H [--model FILE]\n" \
    "                        (--src TEXT [--tgt TEXT] | --src-ids LIST [--tgt-ids LIST]\n"    \
    "                         | --data FILE.tsv | --task NAME [--pairs N]) [--json]\n"

#define HEADS_LAB_HELP                                                                       \
    "--importance: how much each head matters. Every pair (source; reference) is\n"          \
    "run alone, teacher forced (<bos> + reference -> reference + <eos>), once as it\n"       \
    "is and once with each head ablated (zeroed before W_O, as --ablate); over all\n"       \
    "target positions, delta_nll is the mean -log p(reference token) ablated minus\n"      \
    "normal and delta_acc the change of token accuracy (argmax = reference). The\n"         \
    "pairs: --data FILE.tsv (\"source<TAB>reference\" lines, tokenised by the model),\n" \
    "--task NAME's held-out pairs, or by default the held-out pairs of the data the\n"      \
    "model trained on; --pairs N the first N. A table sorted by delta_nll; --json\n"       \
    "one JSON array of {part, layer, head, delta_nll, delta_acc}.\n"                       \
    "--qk-map: one head's queries and keys in one plane (AttentionViz): keys moved\n"      \
    "so their mean is the queries' mean, q scaled by c and k by 1/c (c = sqrt(mean\n"     \
    "|k| / mean |q|): the scores do not change), then the two principal axes of\n"        \
    "[q; k]; real positions only; `explained` is each axis's share of the variance.\n"    \
    "With --data (or --task NAME: its held-out pairs), the points of every pair\n"          \
    "(teacher forced, each alone) in one map, as the window's Data set button.\n"

#endif
