/* scene_qr.c - sharing the scene shown: Ctrl+Shift+C copies its code and
 * browser link, Q shows the link as a QR code big enough for the back row's
 * phones (libqrencode makes the modules; they are drawn as black squares on
 * white with the four-module quiet zone the standard asks for, whatever
 * the theme). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qrencode.h>

#include "scene.h"

/* One QR at a time: the one of the App that asked for it. */
static struct {
    const App *a;
    QRcode *qr;
    char link[SCENE_CODE_MAX + 512];
    char code[SCENE_CODE_MAX];
} Q;

const char *app_scene_base(void)
{
    const char *b = getenv("STEPFORMER_WEB_URL");
    return b && *b ? b : "index.html";
}

/* The code and link of what a shows; 0, or -1 with a notice. */
static int make(App *a, char *code, size_t ccap, char *link, size_t lcap)
{
    SceneLink l;
    TfErr err;
    if (app_scene_capture(a, &l, &err)) {
        app_notice(a, 1, "%s", err.msg);
        return -1;
    }
    if (scene_code_write(&l, code, ccap) < 0 || scene_link_write(&l, app_scene_base(), link, lcap) < 0) {
        app_notice(a, 1, "%s", _("the scene is too long for a code (a shorter sentence?)"));
        return -1;
    }
    return 0;
}

void app_scene_copy(App *a)
{
    char code[SCENE_CODE_MAX], link[SCENE_CODE_MAX + 512];
    if (make(a, code, sizeof code, link, sizeof link))
        return;
    char both[2 * SCENE_CODE_MAX + 600];
    snprintf(both, sizeof both, "%s\n%s\n", code, link);
    if (a->ui.copy)
        a->ui.copy(both);
    app_notice(a, 0, "%s", _("scene copied: its code and link are on the clipboard (Ctrl+Shift+V or paste "
                             "into the Source line opens it)"));
}

int app_scene_qr_open(const App *a)
{
    return Q.a == a && Q.qr != NULL;
}

void app_scene_qr_toggle(App *a)
{
    if (Q.qr) {
        QRcode_free(Q.qr);
        Q.qr = NULL;
        int was = Q.a == a;
        Q.a = NULL;
        if (was)
            return;
    }
    if (make(a, Q.code, sizeof Q.code, Q.link, sizeof Q.link))
        return;
    errno = 0;
    Q.qr = QRcode_encodeString(Q.link, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!Q.qr) { /* ENOSYS: the browser build's stand-in (tools/web/include/qrencode.h) */
        app_notice(a, 1, "%s", errno == ENOSYS ? _("QR codes are left out of the browser build: share the page's address")
                                               : _("the link is too long for a QR code"));
        return;
    }
    Q.a = a;
}

void app_scene_qr_draw(UiCtx *ui, App *a, int W, int H)
{
    if (!app_scene_qr_open(a))
        return;
    const Theme *th = ui->th;
    int n = Q.qr->width, quiet = 4, cells = n + 2 * quiet;
    int fh = ren_font_height(ui->g->ui), th_h = ren_font_height(ui->g->title);
    int room = (W < H ? W : H) - 2 * th_h - 3 * fh - 60;
    int m = room / cells; /* pixels per module: as large as the window allows */
    if (m < 2)
        m = 2;
    int side = m * cells, w = side + 40, h = side + th_h + 3 * fh + 40;
    Rect box = ui_overlay(ui->r, th, W, H, w < W - 20 ? w : W - 20, h < H - 20 ? h : H - 20);
    ren_text(ui->r, ui->g->title, _("Scan to open this view"), box.x + 20, box.y + 12, th->accent);
    int x0 = box.x + (box.w - side) / 2, y0 = box.y + 20 + th_h;
    ren_rect(ui->r, (Rect){x0, y0, side, side}, (Color){255, 255, 255, 255});
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            if (Q.qr->data[y * n + x] & 1)
                ren_rect(ui->r, (Rect){x0 + (quiet + x) * m, y0 + (quiet + y) * m, m, m}, (Color){0, 0, 0, 255});
    int ty = y0 + side + 8;
    ui_text_fit(ui->r, ui->g->ui, Q.link, box.x + 20, ty, box.w - 40, th->text);
    ui_text_fit(ui->r, ui->g->ui, Q.code, box.x + 20, ty + fh + 2, box.w - 40, th->dim);
    const char *hint = strstr(app_scene_base(), "://")
                           ? _("Q or Esc closes · Ctrl+Shift+C copies the code and the link")
                           : _("Phones need the page's full address: start with STEPFORMER_WEB_URL=https://…/index.html");
    ui_text_fit(ui->r, ui->g->ui, hint, box.x + 20, ty + 2 * fh + 4, box.w - 40, strstr(hint, "://") ? th->warn : th->dim);
    ren_clip_pop(ui->r);
}
