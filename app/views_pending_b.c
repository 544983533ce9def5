/* views_pending_b.c - views still being written fall back to the heatmap.
 * Removed when view_pe.c, view_norm.c, view_ffn.c land. */
#include "views.h"

void view_pe(ViewCtx *v) { view_matrix(v); }
void view_norm(ViewCtx *v) { view_matrix(v); }
void view_ffn(ViewCtx *v) { view_matrix(v); }
