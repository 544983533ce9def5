/* heads_pairs.h - the sentence pairs the heads lab measures importance on:
 * a built-in task's held-out pairs (the ones the model did not train on,
 * rebuilt with the seed its metadata records) or every line of a
 * "source<TAB>reference" file, tokenised by the model's own tokenizer.
 * Shared by `stepformer heads --importance` and the window's Heads view. */
#ifndef APP_HEADS_PAIRS_H
#define APP_HEADS_PAIRS_H

#include "importance.h"
#include "model.h"

typedef struct HeadsPairs {
    int n;            /* pairs */
    TfImpPair *pairs; /* (n) pointing into ids */
    int *ids;         /* the token pool */
    int n_bad;        /* file lines skipped: no tab, empty side, too long */
    int n_unk;        /* tokens the model's vocabulary lacks (read as <unk>) */
    char name[64];    /* the task's name or the file's */
} HeadsPairs;

/* task NULL and file NULL: the data the model's metadata says it trained
 * on. max_pairs 0: all. Returns 0, or -1 with err (nothing to measure on
 * is an error too). */
int heads_pairs_load(const TfModel *m, const char *task, const char *file, int max_pairs, HeadsPairs *out,
                     TfErr *err);
void heads_pairs_free(HeadsPairs *p);

#endif
