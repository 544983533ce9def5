/* views_pending_c.c - the decode view while it is being written falls back
 * to the heatmap. Removed when view_decode.c lands. */
#include "views.h"

void view_decode(ViewCtx *v) { view_matrix(v); }
int view_decode_key(App *a, int sym, int mod) { (void)a; (void)sym; (void)mod; return 0; }
void view_decode_free(App *a) { (void)a; }
