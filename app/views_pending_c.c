/* views_pending_c.c - views still being written fall back to the heatmap.
 * Removed when view_decode.c and view_train.c land. */
#include "views.h"

void view_decode(ViewCtx *v) { view_matrix(v); }
void view_train(ViewCtx *v) { view_matrix(v); }
