/* view_model.c - what the views need to know about the model beyond the
 * trace: its own positional table (the paper's interleaved sin/cos,
 * MarianMT's halves, or a table stored in its files). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ops.h"
#include "view.h"

uintptr_t view_pe_key(const TfModel *m)
{
    return m->pe_src ? (uintptr_t)m->pe_src : (uintptr_t)m->cfg.pe_layout + 1;
}

void view_pe_fill(const TfModel *m, float *pe, int rows)
{
    int C = m->cfg.d_model;
    if (m->pe_src && rows <= m->cfg.max_len)
        memcpy(pe, m->pe_src, (size_t)rows * C * sizeof *pe);
    else
        pe_table_layout(pe, rows, C, m->cfg.pe_layout == TF_PE_HALVES);
}

