/* view_table.c - the table of views (view.h): each view file defines its
 * ViewDef; the window finds them here by ViewId. */
#include "view.h"

const ViewDef *const VIEWS[VIEW_COUNT] = {
    [VIEW_AUTO] = NULL,
    [VIEW_MATRIX] = &VIEW_MATRIX_DEF,
    [VIEW_HEADS] = &VIEW_HEADS_DEF,
    [VIEW_LINES] = &VIEW_LINES_DEF,
    [VIEW_MASK] = &VIEW_MASK_DEF,
    [VIEW_PE] = &VIEW_PE_DEF,
    [VIEW_NORM] = &VIEW_NORM_DEF,
    [VIEW_FFN] = &VIEW_FFN_DEF,
    [VIEW_OUTPUT] = &VIEW_OUTPUT_DEF,
    [VIEW_DECODE] = &VIEW_DECODE_DEF,
    [VIEW_TRAIN] = &VIEW_TRAIN_DEF,
    [VIEW_COST] = &VIEW_COST_DEF,
    [VIEW_SCALE] = &VIEW_SCALE_DEF,
    [VIEW_HISTORY] = &VIEW_HISTORY_DEF,
    [VIEW_LENS] = &VIEW_LENS_DEF,
    [VIEW_QKMAP] = &VIEW_QKMAP_DEF,
    [VIEW_SIDE] = &VIEW_SIDE_DEF,
};
