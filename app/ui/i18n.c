/* i18n.c - the window's words in the current language through GNU gettext:
 * the English text is the msgid, po/zh_CN.po holds the Simplified Chinese,
 * the build compiles it into LOCALEDIR/zh_CN/LC_MESSAGES/stepformer.mo and
 * ui_i18n_init binds it (see README, "Translating"). */
#include <libintl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "ui.h"

#define UI_DOMAIN "stepformer"

static int g_lang;
static int g_bound;        /* 1 once the catalog answers */
static char g_dir[4096];

/* glibc picks the catalog by LANGUAGE, which it honours only in a locale
 * other than "C": LC_MESSAGES becomes C.UTF-8 (messages only; numbers and
 * the rest keep the C locale) and LANGUAGE zh_CN, once. English needs no
 * lookup (the msgid is the English), so Z switches live with no further
 * setlocale. libc's own domain is pointed at our folder, where it has no
 * catalog, so strerror() and the CLI's errors stay English. */
int ui_i18n_init(const char *localedir)
{
    g_bound = 0;
    g_dir[0] = 0;
    if (!localedir || !localedir[0])
        return 0;
    if (!setlocale(LC_MESSAGES, "C.UTF-8") && !setlocale(LC_MESSAGES, "C.utf8"))
        return 0;
    setenv("LANGUAGE", "zh_CN", 1);
    if (!bindtextdomain(UI_DOMAIN, localedir) || !bind_textdomain_codeset(UI_DOMAIN, "UTF-8"))
        return 0;
    bindtextdomain("libc", localedir);
    /* the header entry (msgid "") is there only when the catalog was read */
    static const char header_msgid[1] = "";
    const char *head = dgettext(UI_DOMAIN, header_msgid);
    g_bound = head && head[0];
    if (g_bound)
        snprintf(g_dir, sizeof g_dir, "%s", localedir);
    return g_bound;
}

const char *ui_i18n_dir(void) { return g_bound ? g_dir : NULL; }

void ui_set_lang(int lang) { g_lang = lang == 1; }
int ui_lang(void) { return g_lang; }

const char *L(int lang, const char *en)
{
    if (lang != 1 || !en || !en[0] || !g_bound)
        return en;
    return dgettext(UI_DOMAIN, en);
}

const char *ui_tr(const char *msgid) { return L(g_lang, msgid); }
