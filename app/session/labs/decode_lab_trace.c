/* decode_lab_trace.c - the decode lab's traces: each made small for the
 * model (it grows with the sentence, trace_reserve, never for max_len) and
 * made again only when the model's shape changes. The lab's other files
 * call it; it calls none of them. */
#include <string.h>

#include "decode_lab_impl.h"

int dlab_trace_for(TfTrace *tr, int *have, const TfConfig *c, int B, int flags, TfErr *err)
{
    if (*have && memcmp(&tr->cfg, c, sizeof *c) == 0)
        return 0;
    if (*have)
        trace_free(tr);
    *have = 0;
    int T = c->max_len < DLAB_TRACE_T0 ? c->max_len : DLAB_TRACE_T0;
    if (trace_build(tr, c, B, T, flags, err))
        return -1;
    *have = 1;
    return 0;
}
