/* model_ui.h - the language chooser next to the source line and opening a
 * dropped folder or file (model_ui.c). */
#ifndef APP_MODEL_UI_H
#define APP_MODEL_UI_H

#include "app.h"

/* Width the chooser takes at the right of the source line (0: the model
 * has no language tags), and the chooser drawn in rc. */
int model_ui_chooser_width(UiCtx *ui, App *a);
void model_ui_chooser_draw(UiCtx *ui, App *a, Rect rc);
/* The open list over everything (drawn last). */
void model_ui_overlay(UiCtx *ui, App *a);
/* Before a frame's widgets: a click on the open list picks a tag and is
 * used up (1); any click closes it. model_ui_close closes it (Esc). */
int model_ui_click(App *a);
void model_ui_close(App *a);
/* 1 while the list is open; where it was drawn. */
int model_ui_list(const App *a, Rect *where);
/* Put the tag of vocabulary id in front of the source text (replacing the
 * tag it starts with). */
void model_ui_choose(App *a, int id);
void model_ui_free(App *a);

/* Open a dropped folder, model file, or a file of a MarianMT folder (its
 * folder); on failure the model shown stays and a notice says why. */
int app_open_dropped(App *a, const char *path);

#endif
