/* heads_importance.c - `stepformer heads --importance`: every head's
 * delta_nll and delta_acc by ablation over a data set (importance.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "heads_cli.h"
#include "heads_pairs.h"
#include "headstats.h"
#include "importance.h"

int heads_lab_mode(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--importance") == 0)
            return 1;
        if (strcmp(argv[i], "--qk-map") == 0)
            return 2;
    }
    return 0;
}

/* most harmful ablation first; ties in model order */
static int by_nll(const void *a, const void *b)
{
    const TfHeadImportance *x = a, *y = b;
    if (x->delta_nll != y->delta_nll)
        return x->delta_nll < y->delta_nll ? 1 : -1;
    if (x->ref.kind != y->ref.kind)
        return x->ref.kind - y->ref.kind;
    if (x->ref.layer != y->ref.layer)
        return x->ref.layer - y->ref.layer;
    return x->ref.head - y->ref.head;
}

static void print_json(const TfHeadImportance *h, int n)
{
    putchar('[');
    for (int i = 0; i < n; i++)
        printf("%s{\"part\":\"%s\",\"layer\":%d,\"head\":%d,\"delta_nll\":%.9g,\"delta_acc\":%.9g}",
               i ? "," : "", tf_attn_kind_name((TfAttnKind)h[i].ref.kind), h[i].ref.layer, h[i].ref.head,
               h[i].delta_nll, h[i].delta_acc);
    puts("]");
}

static void print_table(TfHeadImportance *h, int n, const HeadsPairs *p, long long positions)
{
    qsort(h, (size_t)n, sizeof *h, by_nll);
    printf("%d heads ablated one at a time over %d pairs of %s (%lld target positions)\n", n, p->n, p->name,
           positions);
    printf("part  layer head   delta_nll  delta_acc\n");
    for (int i = 0; i < n; i++)
        printf("%-5s %5d %4d %+11.6f %+9.4f\n", tf_attn_kind_name((TfAttnKind)h[i].ref.kind), h[i].ref.layer,
               h[i].ref.head, h[i].delta_nll, h[i].delta_acc);
}

static const char *HELP = "usage:\n" HEADS_LAB_USAGE "\n" HEADS_LAB_HELP;

int heads_importance_main(int argc, char **argv)
{
    const char *C = "heads", *model = NULL, *task = NULL, *data = NULL;
    int json = 0, imp = 0, pairs = 0, threads = 2;
    const CliOpt opts[] = {
        CLI_FLAG_OPT("importance", &imp), CLI_STR_OPT("model", &model), CLI_STR_OPT("task", &task),
        CLI_STR_OPT("data", &data), CLI_FLAG_OPT("json", &json),
        CLI_INT_M("pairs", &pairs, 1, 100000000, "--pairs must be a positive integer, not '%s'"),
        CLI_INT_M("threads", &threads, 1, 2, "--threads must be 1 or 2, not '%s'"),
    };
    int bad = cli_parse(argc, argv, opts, CLI_N(opts), NULL, NULL, C, HELP);
    if (bad)
        return bad < 0 ? 0 : 1;
    if (task && data)
        return cli_fail(C, "give --task NAME or --data FILE.tsv, not both");
    static TfModel m;
    if (cli_load_model(&m, model, C))
        return 1;
    HeadsPairs p;
    TfErr err;
    int rc = 1;
    if (heads_pairs_load(&m, task, data, pairs, &p, &err)) {
        model_free(&m);
        return cli_fail(C, "%s", err.msg);
    }
    if (p.n_bad)
        cli_warn(C, "%s: skipped %d pair%s (no tab, an empty side, or longer than the model's max_len)", p.name,
                 p.n_bad, p.n_bad == 1 ? "" : "s");
    if (p.n_unk)
        cli_warn(C, "%d tokens of %s are not in the model's vocabulary (read as <unk>)", p.n_unk, p.name);
    int n = (m.cfg.n_enc + 2 * m.cfg.n_dec) * m.cfg.n_heads;
    TfHeadImportance *h = malloc((size_t)n * sizeof *h);
    long long positions = 0;
    for (int i = 0; i < p.n; i++)
        positions += p.pairs[i].R + 1;
    if (!h) {
        cli_fail(C, "out of memory");
    } else if (tf_importance(&m, p.pairs, p.n, threads, h, &err)) {
        cli_fail(C, "%s", err.msg);
    } else {
        if (json)
            print_json(h, n);
        else
            print_table(h, n, &p, positions);
        rc = 0;
    }
    free(h);
    heads_pairs_free(&p);
    model_free(&m);
    return rc;
}
