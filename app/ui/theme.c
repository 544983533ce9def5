/* theme.c - the three looks: dark (default), light (bright rooms and
 * print), high contrast (projectors that wash colours out). */
#include "ui.h"

static const Theme THEMES[THEME_COUNT] = {
    [THEME_DARK] = {
        .name = N_("dark"),
        .bg = {24, 26, 31, 255}, .panel = {32, 35, 42, 255}, .panel2 = {42, 46, 55, 255},
        .border = {64, 69, 82, 255}, .text = {230, 232, 236, 255}, .dim = {150, 156, 168, 255},
        .accent = {94, 176, 255, 255}, .accent2 = {255, 170, 60, 255}, .select = {255, 214, 10, 255},
        .warn = {255, 120, 100, 255}, .masked = {12, 12, 14, 255}, .masked_text = {132, 132, 142, 255},
        .pad = {70, 62, 74, 255}, .good = {110, 210, 120, 255}, .bad = {255, 100, 100, 255}},
    [THEME_LIGHT] = {
        .name = N_("light"),
        .bg = {246, 246, 243, 255}, .panel = {255, 255, 255, 255}, .panel2 = {236, 237, 240, 255},
        .border = {196, 199, 206, 255}, .text = {24, 26, 31, 255}, .dim = {96, 100, 110, 255},
        .accent = {0, 102, 204, 255}, .accent2 = {160, 80, 0, 255}, .select = {140, 50, 170, 255},
        .warn = {190, 40, 30, 255}, .masked = {40, 40, 44, 255}, .masked_text = {170, 170, 176, 255},
        .pad = {214, 204, 218, 255}, .good = {16, 120, 40, 255}, .bad = {200, 30, 30, 255}},
    [THEME_CONTRAST] = {
        .name = N_("contrast"),
        .bg = {0, 0, 0, 255}, .panel = {0, 0, 0, 255}, .panel2 = {30, 30, 30, 255},
        .border = {255, 255, 255, 255}, .text = {255, 255, 255, 255}, .dim = {220, 220, 220, 255},
        .accent = {0, 230, 255, 255}, .accent2 = {255, 200, 0, 255}, .select = {255, 255, 0, 255},
        .warn = {255, 80, 80, 255}, .masked = {255, 255, 255, 255}, .masked_text = {0, 0, 0, 255},
        .pad = {90, 0, 90, 255}, .good = {0, 255, 0, 255}, .bad = {255, 60, 60, 255}},
};

const Theme *theme_get(ThemeId id)
{
    if ((int)id < 0 || id >= THEME_COUNT)
        id = THEME_DARK;
    return &THEMES[id];
}
