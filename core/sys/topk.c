/* topk.c - the k largest values of a row; see topk.h. */
#include "topk.h"

int tf_top_k(const float *p, int n, int k, int *ids, float *vals)
{
    int want = k < n ? k : n, have = 0;
    for (int i = 0; i < n && want > 0; i++) {
        if (have == want && !(p[i] > vals[want - 1]))
            continue;
        int at = have < want ? have++ : want - 1;
        while (at > 0 && p[i] > vals[at - 1]) {
            vals[at] = vals[at - 1];
            ids[at] = ids[at - 1];
            at--;
        }
        vals[at] = p[i];
        ids[at] = i;
    }
    for (int r = have; r < k; r++) {
        ids[r] = -1;
        vals[r] = 0;
    }
    return have;
}
