/* views_pending_d.c - the train view while it is being written falls back
 * to the heatmap. Removed when view_train.c lands. */
#include "views.h"

void view_train(ViewCtx *v) { view_matrix(v); }
int view_train_key(App *a, int sym, int mod) { (void)a; (void)sym; (void)mod; return 0; }
void view_train_free(App *a) { (void)a; }
