/* views_pending_a.c - views still being written fall back to the heatmap.
 * Removed when view_heads.c, view_lines.c, view_mask.c, view_output.c land. */
#include "views.h"

void view_heads(ViewCtx *v) { view_matrix(v); }
void view_lines(ViewCtx *v) { view_matrix(v); }
void view_mask(ViewCtx *v) { view_matrix(v); }
void view_output(ViewCtx *v) { view_matrix(v); }
