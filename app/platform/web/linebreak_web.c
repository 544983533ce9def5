/* linebreak_web.c - line break opportunities for the browser build, where
 * libunibreak is not built (tools/web/include/linebreak.h): a small subset
 * of UAX #14 that covers what the window wraps, English and Chinese prose
 * with formulas. A line may end after a space run unless closing
 * punctuation or a slash follows or an opening bracket precedes (LB13,
 * LB14: "x / y", "[ and ]" stay whole), never next to a quotation mark (LB19),
 * after a hyphen between letters ("self-|attention"), and between two CJK
 * characters unless the second is closing punctuation (，。、）」 ...) or
 * the first is opening punctuation (（「 ...), after a slash unless a digit,
 * a space, a hyphen, another slash or closing punctuation follows (class
 * SY: "QKᵀ/|√d_k", "and/|or", "1/2"), before a minus sign (U+2212, class
 * PR) that follows a letter ("step^|−0.5"); a newline must break; the last
 * code point must break; bytes inside a code point are marked as such.
 * Everything else (letters, digits, √ × · ∞ ≤ in formulas) stays glued, as
 * libunibreak keeps it without a language. tests/platform/test_linebreak_web.c
 * holds it against libunibreak on every lesson. */
#include <linebreak.h>

#include <stdint.h>
#include <string.h>

void init_linebreak(void) {}

/* the code point at s[i] (bad bytes read as themselves); *k its length */
static uint32_t cp_at(const utf8_t *s, size_t n, size_t i, int *k)
{
    uint32_t c = s[i];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + (size_t)len > n)
        len = 1;
    if (len > 1) {
        c &= 0x7f >> len;
        for (int j = 1; j < len; j++)
            c = c << 6 | (s[i + (size_t)j] & 0x3f);
    }
    *k = len;
    return c;
}

static int is_cjk(uint32_t c)
{
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF) ||
           (c >= 0x20000 && c <= 0x2FFFF);
}

static int is_closing(uint32_t c)
{
    static const uint32_t CL[] = {0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF01, 0xFF1F, 0xFF09,
                                  0x300D, 0x300F, 0x3011, 0x300B, 0x3009, 0x201D, 0x2019, 0x2026, 0x30FC};
    for (size_t i = 0; i < sizeof CL / sizeof *CL; i++)
        if (c == CL[i])
            return 1;
    return c == ')' || c == ']' || c == '}' || c == ',' || c == '.' || c == ';' || c == ':' || c == '!' ||
           c == '?';
}

/* LB13: never a break before these, even after spaces */
static int no_break_before(uint32_t c)
{
    return is_closing(c) || c == '/';
}

/* LB19: quotation marks (ambiguous without a language) glue to both sides */
static int is_quote(uint32_t c)
{
    return c == '"' || c == '\'' || c == 0x201C || c == 0x201D || c == 0x2018 || c == 0x2019;
}

static int is_letter(uint32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* what libunibreak lets a minus sign (PR) break from: letters and the
 * marks formulas glue to them (^ _ ᵀ, Greek) */
static int is_alpha_like(uint32_t c)
{
    return is_letter(c) || c == '^' || c == '_' || (c >= 0x1D00 && c <= 0x1DBF) || (c >= 0x0370 && c <= 0x03FF);
}

static int is_opening(uint32_t c)
{
    return c == 0xFF08 || c == 0x300C || c == 0x300E || c == 0x3010 || c == 0x300A || c == 0x3008 ||
           c == 0x201C || c == 0x2018 || c == '(' || c == '[' || c == '{';
}

void set_linebreaks_utf8(const utf8_t *s, size_t n, const char *lang, char *brk)
{
    (void)lang;
    memset(brk, LINEBREAK_INSIDEACHAR, n);
    size_t i = 0;
    uint32_t prev = 0, solid = 0; /* the code point before; the last non-space one */
    while (i < n) {
        int k, k2 = 0;
        uint32_t c = cp_at(s, n, i, &k);
        size_t last = i + (size_t)k - 1, j = i + (size_t)k;
        uint32_t next = j < n ? cp_at(s, n, j, &k2) : 0;
        char b = LINEBREAK_NOBREAK;
        if (c != ' ')
            solid = c;
        if (j >= n || c == '\n')
            b = LINEBREAK_MUSTBREAK;
        else if (is_quote(c) || is_quote(next))
            b = LINEBREAK_NOBREAK;
        else if (c == ' ' && next != ' ' && next != '\n') {
            /* the first non-space after the run decides */
            size_t q = j;
            uint32_t after = next;
            int kq;
            while (q < n && (after = cp_at(s, n, q, &kq)) == ' ')
                q += (size_t)kq;
            /* LB14: nor after an opening bracket and spaces */
            b = no_break_before(after) || is_opening(solid) ? LINEBREAK_NOBREAK : LINEBREAK_ALLOWBREAK;
        } else if (c == '-' && is_letter(prev) && is_letter(next))
            b = LINEBREAK_ALLOWBREAK;
        else if (c == '/' && !(next >= '0' && next <= '9') && next != ' ' && next != '\n' && next != '-' &&
                 next != '/' && !is_closing(next))
            b = LINEBREAK_ALLOWBREAK;
        else if (next == 0x2212 && is_alpha_like(c))
            b = LINEBREAK_ALLOWBREAK;
        else if ((is_cjk(c) || is_cjk(next)) && next != ' ' && !is_closing(next) && !is_opening(c) &&
                 !(c < 0x80 && c != ' ' && !is_cjk(next)))
            b = LINEBREAK_ALLOWBREAK;
        brk[last] = b;
        prev = c;
        i = j;
    }
}
