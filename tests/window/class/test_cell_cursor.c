/* test_cell_cursor.c - the matrix view without a mouse: Ctrl+arrows move a
 * keyboard cell, which the status line and the panel read (the hover) with
 * the trace's value; it stays inside the matrix; the mouse over the grid
 * wins; the keys are listed in ?. */
#include <stdio.h>
#include <string.h>

#include "cmd_table.h"
#include "test_app_util.h"

#define MODEL "assets/models/en2zh.safetensors"

static void test_keys_move_the_cell(void **state)
{
    (void)state;
    static App a;
    tu_open_src(&a, MODEL, "i read books at home today", 100);
    app_goto(&a, ST_ENC_SELF_WEIGHTS, 0);
    app_set_head(&a, 1);
    a.ui.in.mx = a.ui.in.my = -100; /* the mouse away from the grid */
    tu_frame(&a);
    expect_true(!a.hover.valid, "no cell before a key");
    ev_key(&a, KEY_RIGHT, MOD_CTRL); /* on, at the top left */
    ev_key(&a, KEY_RIGHT, MOD_CTRL);
    ev_key(&a, KEY_RIGHT, MOD_CTRL);
    ev_key(&a, KEY_DOWN, MOD_CTRL);
    tu_frame(&a);
    TfView v;
    TfErr err;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 0, 0, &v, &err) == 0, "%s", err.msg);
    expect_true(a.hover.valid && a.hover.row == 1 && a.hover.col == 2, "the cell (1, 2): valid %d row %d col %d",
                a.hover.valid, a.hover.row, a.hover.col);
    TfView h1;
    expect_true(tf_view(&a.ses.trace, ST_ENC_SELF_WEIGHTS, 0, 1, 0, &h1, &err) == 0, "%s", err.msg);
    expect_true(a.hover.value == tf_view_at(&h1, 1, 2), "its value is the trace's: %g", a.hover.value);
    for (int i = 0; i < 20; i++)
        ev_key(&a, KEY_RIGHT, MOD_CTRL);
    tu_frame(&a);
    expect_true(a.hover.col == h1.cols - 1, "it stops at the last column: %d", a.hover.col);
    for (int i = 0; i < 20; i++)
        ev_key(&a, KEY_UP, MOD_CTRL);
    tu_frame(&a);
    expect_true(a.hover.row == 0, "and at the first row: %d", a.hover.row);
    expect_true(cmd_find("cursor.left") && cmd_find("cursor.down"), "the keys are in the table (and so in ?)");
    app_free(&a);
}

TU_RENDERER(1280, 800)

int main(void)
{
    TU_RUN_HEADLESS(setup, teardown, cmocka_unit_test(test_keys_move_the_cell));
}
