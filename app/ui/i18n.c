/* i18n.c - the window's words in the current language: the English text is
 * the msgid, po/zh_CN.po holds the Simplified Chinese, the build compiles it
 * into LOCALEDIR/zh_CN/LC_MESSAGES/stepformer.mo and ui_i18n_init reads that
 * file (see README, "Translating").
 *
 * The .mo file is read here, not through libintl: the browser build's libc
 * has no gettext that follows LANGUAGE, and reading it ourselves leaves the
 * locale alone (strerror() and the CLI's errors stay English, numbers keep
 * the C locale). The format (GNU gettext manual, "MO Files"): a 28-byte
 * header (magic 0x950412de in the file's byte order, revision, N, the offset
 * of the table of N original strings, the offset of the table of N
 * translations), each table N (length, offset) pairs of 32-bit words, the
 * originals sorted by strcmp, so a lookup is a binary search. Every length
 * and offset is checked against the file's size before use. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define UI_MO_PATH "/zh_CN/LC_MESSAGES/stepformer.mo"
#define UI_MO_MAX (64u << 20) /* a catalog is KBs; refuse anything absurd */

typedef struct Mo {
    unsigned char *data;
    size_t size;
    uint32_t n, orig, trans;
    int swap;
} Mo;

static int g_lang;
static int g_bound;        /* 1 once the catalog answers */
static char g_dir[4096];
static Mo g_mo;

static uint32_t word(const Mo *m, size_t at)
{
    const unsigned char *p = m->data + at;
    return m->swap ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* string k of the table at tab: NULL unless it lies inside the file, NUL-ended */
static const char *mo_str(const Mo *m, uint32_t tab, uint32_t k)
{
    uint32_t len = word(m, (size_t)tab + 8u * k), off = word(m, (size_t)tab + 8u * k + 4);
    if ((size_t)off >= m->size || (size_t)len >= m->size - off || m->data[off + len] != 0)
        return NULL;
    return (const char *)m->data + off;
}

static int mo_check(Mo *m)
{
    if (m->size < 28)
        return -1;
    uint32_t magic = (uint32_t)m->data[0] | (uint32_t)m->data[1] << 8 | (uint32_t)m->data[2] << 16 |
                     (uint32_t)m->data[3] << 24;
    if (magic != 0x950412deu && magic != 0xde120495u)
        return -1;
    m->swap = magic == 0xde120495u;
    m->n = word(m, 8);
    m->orig = word(m, 12);
    m->trans = word(m, 16);
    uint64_t tab = (uint64_t)m->n * 8;
    if (tab > m->size || m->orig > m->size - tab || m->trans > m->size - tab)
        return -1;
    for (uint32_t k = 0; k < m->n; k++)
        if (!mo_str(m, m->orig, k) || !mo_str(m, m->trans, k))
            return -1;
    return 0;
}

static int mo_load(Mo *m, const char *path)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size <= 0 || (unsigned long)size > UI_MO_MAX || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return -1;
    }
    m->data = malloc((size_t)size);
    m->size = (size_t)size;
    int ok = m->data && fread(m->data, 1, m->size, f) == m->size;
    fclose(f);
    if (!ok || mo_check(m)) {
        free(m->data);
        memset(m, 0, sizeof *m);
        return -1;
    }
    return 0;
}

/* the translation of id, or NULL (not there, or translated as empty) */
static const char *mo_find(const Mo *m, const char *id)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(id, mo_str(m, m->orig, mid));
        if (c == 0) {
            const char *t = mo_str(m, m->trans, mid);
            return t && t[0] ? t : NULL;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

int ui_i18n_init(const char *localedir)
{
    g_bound = 0;
    g_dir[0] = 0;
    free(g_mo.data);
    memset(&g_mo, 0, sizeof g_mo);
    if (!localedir || !localedir[0] || strlen(localedir) + sizeof UI_MO_PATH > sizeof g_dir)
        return 0;
    char path[sizeof g_dir + sizeof UI_MO_PATH];
    snprintf(path, sizeof path, "%s%s", localedir, UI_MO_PATH);
    if (mo_load(&g_mo, path))
        return 0;
    /* the header entry (msgid "") is there in every catalog msgfmt writes */
    g_bound = mo_find(&g_mo, "") != NULL;
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
    const char *t = mo_find(&g_mo, en);
    return t ? t : en;
}

const char *ui_tr(const char *msgid) { return L(g_lang, msgid); }

const char *ui_errno_text(int e)
{
    switch (e) {
    case ENOENT: return L(g_lang, "no such file or folder");
    case EACCES: case EPERM: return L(g_lang, "permission denied");
    case ENOTDIR: return L(g_lang, "a part of the path is a file, not a folder");
    case EROFS: return L(g_lang, "the disk is read-only");
    case ENOSPC: case EDQUOT: return L(g_lang, "the disk is full");
    case EEXIST: return L(g_lang, "it exists already");
    case ENAMETOOLONG: return L(g_lang, "the name is too long");
    default: return strerror(e);
    }
}
