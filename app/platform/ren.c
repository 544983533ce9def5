/* ren.c - the Ren as every piece of the renderer sees it (ren.h for the
 * contract, ren_internal.h for how it is cut into files): its output size
 * and pixel scale, its window (the handle, an error box), the lists of the
 * fonts and images it owns, and the region drawing can reach. It calls no
 * other piece: ren_frame.c opens and closes a Ren and draws its frames on
 * top of all of them. */
#include "ren.h"
#include "ren_internal.h"

/* ----------------------------------------------------------------- lists */

void ren_list_add(RenLink **list, RenLink *n)
{
    n->next = *list;
    *list = n;
}

void ren_list_remove(RenLink **list, RenLink *n)
{
    while (*list && *list != n)
        list = &(*list)->next;
    if (*list)
        *list = n->next;
}

/* ----------------------------------------------------------------- sizes */

void ren_output_size(Ren *r, int *w, int *h)
{
    int ow = 0, oh = 0;
    if (r && r->win)
        SDL_GetRendererOutputSize(r->sdl, &ow, &oh);
    else if (r) {
        ow = r->w;
        oh = r->h;
    }
    if (w)
        *w = ow;
    if (h)
        *h = oh;
}

float ren_pixel_scale(Ren *r)
{
    if (!r || !r->win)
        return 1.0f;
    int ww = 0, wh = 0, ow = 0;
    SDL_GetWindowSize(r->win, &ww, &wh);
    ren_output_size(r, &ow, NULL);
    return ww > 0 && ow > 0 ? (float)ow / (float)ww : 1.0f;
}

void *ren_window_handle(Ren *r)
{
    return r ? r->win : NULL;
}

int ren_show_error(Ren *r, const char *title, const char *msg)
{
    /* a box needs a display that can show one (not the offscreen driver) */
    SDL_Window *parent = r ? r->win : NULL;
    if (!parent && !SDL_WasInit(SDL_INIT_VIDEO))
        return -1;
    return SDL_ShowSimpleMessageBox(SDL_MESSAGEBOX_ERROR, title ? title : "Stepformer",
                                    msg ? msg : "", parent) < 0 ? -1 : 0;
}

/* ------------------------------------------------------ what can be seen */

Rect ren_visible(Ren *r)
{
    Rect all = {0, 0, 0, 0};
    ren_output_size(r, &all.w, &all.h);
    int d = mini(r->clip_n, REN_CLIP_DEPTH);
    return d ? ren_intersect(all, r->clip[d - 1]) : all;
}
