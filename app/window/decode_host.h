/* decode_host.h - the window's side of the decode tab (decode_host.c): it
 * owns the decode lab (app/session/labs/decode_lab.h), runs it with what the
 * decode view shows and wishes, and fills the DecShow the Scene carries to
 * the view. */
#ifndef APP_DECODE_HOST_H
#define APP_DECODE_HOST_H

#include "app.h"
#include "decode_lab.h"
#include "view_decode.h"

/* Before the decode view draws, takes a key or is set up, with the Scene
 * it will see (sc->dec aside): the lab brought up to date within the
 * frame's budget (all of it headless), its results in dhost_show, which the
 * Scene carries. After, with the Scene as it is then: the view's wishes
 * applied to the lab (forcing, a draw, the seed; when a setting changed,
 * the lab brought up to date again). 0, or -1 out of memory (the view then
 * shows nothing of the lab). */
int dhost_before(App *a, const Scene *sc);
void dhost_after(App *a, const Scene *sc);
/* What the view is shown, or NULL before the first dhost_before. */
const DecShow *dhost_show(const App *a);
/* The lab (NULL before the first dhost_before; tests read its results). */
DecodeLab *dhost_lab(const App *a);
void dhost_free(App *a);

#endif
