/* scene.h - the window's state as a scene (link.h's fields, scene_code.h's
 * code) and a scene opened in a running window (scene.c); the QR code of
 * the scene's link drawn large for phones to scan (scene_qr.c). */
#ifndef APP_SCENE_H
#define APP_SCENE_H

#include "app.h"
#include "link.h"
#include "scene_code.h"

/* What the window shows, as a scene: the model (by name, or by file name
 * and hash), the Source and Target lines, stage, layer, head, view, the
 * language, the lesson and step, the experiment, the sentence shown and,
 * on the Decode tab, its pane, beam, α and sampling settings. */
int app_scene_capture(const App *a, SceneLink *l, TfErr *err);

/* Open a scene in the running window (the model first, when it is
 * another). 0, or -1 with err naming what is missing. */
int app_scene_open(App *a, const SceneLink *l, TfErr *err);
/* Only what the window's flags cannot say: the Decode tab's part, what D
 * shows of the experiment and R's rollout (the command line opens the
 * rest). */
int app_scene_open_decode(App *a, const SceneLink *l);
/* A code (pasted, or Ctrl+Shift+V): opened, or a notice saying why not. */
int app_scene_open_code(App *a, const char *code);

/* Ctrl+Shift+C: the code and the browser link to the clipboard, and a
 * notice. Q: the link's QR code over the window (Esc or Q closes it). */
void app_scene_copy(App *a);
void app_scene_qr_toggle(App *a);
int app_scene_qr_open(const App *a);
void app_scene_qr_draw(UiCtx *ui, App *a, int W, int H);

/* The page the browser link points at ($STEPFORMER_WEB_URL, else
 * "index.html" beside the page a teacher hosts). */
const char *app_scene_base(void);

#endif
