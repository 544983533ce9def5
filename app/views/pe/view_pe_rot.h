/* view_pe_rot.h - the positional encoding view's rotation panel
 * (view_pe_rot.c), which view_pe.c lays out beside the waves and the table:
 * PE(pos+k) = R(k·ω)·PE(pos) for one sin/cos pair. */
#ifndef VIEW_PE_ROT_H
#define VIEW_PE_ROT_H

#include "view_pe_base.h"

void pe_draw_rotation(ViewCtx *v, Rect rc, const PeData *d);
/* The width the equation R·PE(pos) = result takes on one line. */
int pe_rot_eq_w(ViewCtx *v);

#endif
