/* test_vocab.c - vocabularies, tokenisation and UTF-8 checks (core/vocab.c).
 *
 * UTF-8 validation is compared against an independent validator written from
 * the byte ranges of RFC 3629, on hand-picked cases and on 100,000 random
 * byte strings that also go through tok_split and vocab_encode. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vocab.h"

/* ---- a reference validator: RFC 3629, section 4 ------------------------ */

/* Bytes of the well-formed sequence at s, or 0 when ill-formed. */
static int ref_seq(const unsigned char *s, size_t len)
{
    unsigned c = s[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c <= 0x7F) return 1;
    else if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) { n = 3; lo = 0xA0; }          /* no overlongs */
    else if (c >= 0xE1 && c <= 0xEC) n = 3;
    else if (c == 0xED) { n = 3; hi = 0x9F; }          /* no surrogates */
    else if (c >= 0xEE && c <= 0xEF) n = 3;
    else if (c == 0xF0) { n = 4; lo = 0x90; }          /* no overlongs */
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) { n = 4; hi = 0x8F; }          /* <= U+10FFFF */
    else return 0;
    if ((size_t)n > len || s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

static int ref_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        int n = ref_seq(u + i, len - i);
        if (!n)
            return 0;
        i += (size_t)n;
    }
    return 1;
}

/* ---- UTF-8 ------------------------------------------------------------ */

static void test_utf8_valid(void **state)
{
    (void)state;
    static const struct { const char *s; int len; uint32_t cp; } OK[] = {
        {"a", 1, 0x61},
        {"\xC2\x80", 2, 0x80},
        {"\xC3\xA9", 2, 0xE9},               /* é */
        {"\xDF\xBF", 2, 0x7FF},
        {"\xE0\xA0\x80", 3, 0x800},
        {"\xE4\xB8\xAD", 3, 0x4E2D},         /* 中 */
        {"\xEF\xBC\x9F", 3, 0xFF1F},         /* ？ */
        {"\xEF\xBF\xBF", 3, 0xFFFF},
        {"\xF0\x90\x80\x80", 4, 0x10000},
        {"\xF0\x9F\x98\x80", 4, 0x1F600},    /* emoji */
        {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF},   /* the last code point */
    };
    for (size_t i = 0; i < sizeof OK / sizeof OK[0]; i++) {
        uint32_t cp = 0;
        int n = utf8_next(OK[i].s, strlen(OK[i].s), &cp);
        expect_true(n == OK[i].len && cp == OK[i].cp,
                    "case %zu: %d bytes U+%04X, got %d U+%04X", i, OK[i].len,
                    (unsigned)OK[i].cp, n, (unsigned)cp);
    }
    const char *mixed = "i love 中国 \xF0\x9F\x98\x80!";
    expect_true(utf8_check(mixed, strlen(mixed), NULL) == 0, "%s", "mixed text valid");
    expect_true(utf8_check("", 0, NULL) == 0, "%s", "empty text valid");
}

static void test_utf8_invalid(void **state)
{
    (void)state;
    static const struct { const char *s, *why; } BAD[] = {
        {"\xC0\xAF", "overlong 2-byte '/'"},
        {"\xC1\xBF", "overlong 2-byte"},
        {"\xE0\x80\xAF", "overlong 3-byte '/'"},
        {"\xE0\x9F\xBF", "overlong 3-byte U+7FF"},
        {"\xF0\x80\x80\xAF", "overlong 4-byte '/'"},
        {"\xF0\x8F\xBF\xBF", "overlong 4-byte U+FFFF"},
        {"\xED\xA0\x80", "surrogate U+D800"},
        {"\xED\xBF\xBF", "surrogate U+DFFF"},
        {"\xE4\xB8", "truncated 3-byte"},
        {"\xF0\x9F\x98", "truncated 4-byte"},
        {"\xC3", "truncated 2-byte"},
        {"\xF4\x90\x80\x80", "U+110000"},
        {"\xF5\x80\x80\x80", "lead byte F5"},
        {"\xF8\x88\x80\x80\x80", "5-byte form"},
        {"\xFF", "byte FF"},
        {"\x80", "lone continuation"},
        {"\xE4\x41\xAD", "ASCII inside a sequence"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        uint32_t cp;
        size_t len = strlen(BAD[i].s);
        int n = utf8_next(BAD[i].s, len, &cp);
        expect_true(n == -1, "%s: -1, got %d", BAD[i].why, n);
        expect_true(!ref_valid(BAD[i].s, len), "reference agrees on %s", BAD[i].why);
    }
    size_t off = 99;
    expect_true(utf8_check("ab\xE4\xB8", 4, &off) == -1 && off == 2,
                "truncated tail: bad at byte 2, got %zu", off);
    expect_true(utf8_check("\xE4\xB8\xAD\xFF", 4, &off) == -1 && off == 3,
                "bad at byte 3 after 中, got %zu", off);
    uint32_t cp;
    expect_true(utf8_next("a", 0, &cp) == -1, "%s", "no bytes: -1");
}

/* ---- splitting --------------------------------------------------------- */

static void expect_split(TokMode mode, const char *text, int want_n,
                         const char *const *want)
{
    TokSpan sp[32];
    TfErr err = {{0}};
    int n = tok_split(mode, text, strlen(text), sp, 32, &err);
    expect_true(n == want_n, "\"%s\": %d tokens, got %d (%s)", text, want_n, n,
                err.msg);
    for (int i = 0; i < n && i < 32; i++) {
        int l = (int)strlen(want[i]);
        expect_true(sp[i].len == l && memcmp(text + sp[i].off, want[i], (size_t)l) == 0,
                    "\"%s\" token %d \"%s\", got \"%.*s\"", text, i, want[i],
                    sp[i].len, text + sp[i].off);
    }
}

static void test_word_split(void **state)
{
    (void)state;
    expect_split(TOK_WORD, "do you like tea?", 5,
                 (const char *[]){"do", "you", "like", "tea", "?"});
    expect_split(TOK_WORD, "do you like tea ?", 5,
                 (const char *[]){"do", "you", "like", "tea", "?"});
    expect_split(TOK_WORD, "你 喜欢 茶 吗 ？", 5,
                 (const char *[]){"你", "喜欢", "茶", "吗", "？"});
    expect_split(TOK_WORD, "你 喜欢 茶吗？", 4,
                 (const char *[]){"你", "喜欢", "茶吗", "？"});
    expect_split(TOK_WORD, "  hello,\tworld. \n", 4,
                 (const char *[]){"hello", ",", "world", "."});
    expect_split(TOK_WORD, "我\xE3\x80\x80你", 2, /* ideographic space */
                 (const char *[]){"我", "你"});
    expect_split(TOK_WORD, "?", 1, (const char *[]){"?"});
    expect_split(TOK_WORD, "", 0, NULL);
    expect_split(TOK_WORD, " \t\r\n ", 0, NULL);
}

static void test_char_split(void **state)
{
    (void)state;
    expect_split(TOK_CHAR, "我爱中国", 4, (const char *[]){"我", "爱", "中", "国"});
    expect_split(TOK_CHAR, " a b\n", 3, (const char *[]){"a", " ", "b"});
    expect_split(TOK_CHAR, "é\xF0\x9F\x98\x80x", 3,
                 (const char *[]){"é", "\xF0\x9F\x98\x80", "x"});
    expect_split(TOK_CHAR, "  ", 0, NULL);
    TfErr err = {{0}};
    int n = tok_split(TOK_CHAR, "ab\xFF", 3, NULL, 0, &err);
    expect_true(n == -1 && strstr(err.msg, "UTF-8"), "invalid: -1 and a message, got %d \"%s\"",
                n, err.msg);
    /* counting without spans */
    n = tok_split(TOK_WORD, "a b c d e f", 11, NULL, 0, NULL);
    expect_true(n == 6, "6 tokens counted, got %d", n);
}

/* ---- vocabularies ------------------------------------------------------ */

static void make_vocab(Vocab *v, TokMode mode, const char *const *words, int n)
{
    TfErr err = {{0}};
    expect_true(vocab_init(v, mode, &err) == 0, "vocab_init: %s", err.msg);
    for (int i = 0; i < n; i++) {
        int id = vocab_add(v, words[i], (int)strlen(words[i]), &err);
        expect_true(id == TOK_NSPECIAL + i, "\"%s\" gets id %d, got %d (%s)",
                    words[i], TOK_NSPECIAL + i, id, err.msg);
    }
}

static void test_vocab_add(void **state)
{
    (void)state;
    Vocab v;
    const char *w[] = {"i", "love", "china", "中国"};
    make_vocab(&v, TOK_WORD, w, 4);
    const char *spec[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
    for (int i = 0; i < 4; i++)
        expect_true(strcmp(vocab_token(&v, i), spec[i]) == 0, "id %d is %s, got %s",
                    i, spec[i], vocab_token(&v, i));
    TfErr err = {{0}};
    expect_true(vocab_add(&v, "love", 4, &err) == 5, "%s", "re-adding gives the same id");
    expect_true(v.n == 8, "8 tokens, got %d", v.n);
    expect_true(vocab_find(&v, "中国", 6) == 7, "中国 is 7, got %d",
                vocab_find(&v, "中国", 6));
    expect_true(vocab_find(&v, "Love", 4) == -1, "%s", "find is exact (case)");
    expect_true(strcmp(vocab_token(&v, 99), "<?>") == 0 &&
                    strcmp(vocab_token(&v, -1), "<?>") == 0,
                "%s", "out-of-range ids give <?>");
    char big[300];
    memset(big, 'x', sizeof big);
    expect_true(vocab_add(&v, big, VOCAB_MAX_TOKEN_BYTES, &err) >= 0, "%s",
                "a 255-byte token is fine");
    expect_true(vocab_add(&v, big, VOCAB_MAX_TOKEN_BYTES + 1, &err) == -1, "%s",
                "a 256-byte token is refused");
    expect_true(vocab_add(&v, "", 0, &err) == -1, "%s", "empty token refused");
    expect_true(vocab_add(&v, "a\xFF", 2, &err) == -1, "%s", "invalid UTF-8 refused");
    expect_true(vocab_add(&v, "a\0b", 3, &err) == -1, "%s", "NUL refused");
    /* many tokens: the hash table grows and every id is still found */
    for (int i = 0; i < 5000; i++) {
        char t[16];
        int l = snprintf(t, sizeof t, "w%d", i);
        int id = vocab_add(&v, t, l, &err);
        expect_true(id == 9 + i, "w%d gets %d, got %d", i, 9 + i, id);
    }
    for (int i = 0; i < 5000; i++) {
        char t[16];
        int l = snprintf(t, sizeof t, "w%d", i);
        expect_true(vocab_find(&v, t, l) == 9 + i, "w%d found", i);
    }
    vocab_free(&v);
    vocab_free(&v); /* freeing twice is harmless */
}

static void test_encode(void **state)
{
    (void)state;
    Vocab v;
    const char *w[] = {"i", "love", "china", "?"};
    make_vocab(&v, TOK_WORD, w, 4);
    int ids[8], unk = -1;
    TfErr err = {{0}};
    int n = vocab_encode(&v, "i love pizza ?", ids, NULL, 8, &unk, &err);
    expect_true(n == 4 && unk == 1, "4 tokens, 1 unknown; got %d %d", n, unk);
    expect_true(ids[0] == 4 && ids[1] == 5 && ids[2] == TOK_UNK && ids[3] == 7,
                "ids 4 5 3 7, got %d %d %d %d", ids[0], ids[1], ids[2], ids[3]);

    /* lowercase lookup only when the vocabulary asks for it */
    n = vocab_encode(&v, "I LOVE China", ids, NULL, 8, &unk, &err);
    expect_true(n == 3 && unk == 3, "case-sensitive: 3 unknown, got %d %d", n, unk);
    v.lower = 1;
    n = vocab_encode(&v, "I LOVE China?", ids, NULL, 8, &unk, &err);
    expect_true(n == 4 && unk == 0 && ids[0] == 4 && ids[1] == 5 && ids[2] == 6 &&
                    ids[3] == 7,
                "lowercased: 4 5 6 7, got n %d unk %d: %d %d %d %d", n, unk, ids[0],
                ids[1], ids[2], ids[3]);

    /* truncation: writes max ids, returns the full count */
    for (int i = 0; i < 8; i++)
        ids[i] = -7;
    TokSpan sp[8];
    n = vocab_encode(&v, "i love china i love china", ids, sp, 2, &unk, &err);
    expect_true(n == 6, "returns all 6 tokens, got %d", n);
    expect_true(ids[0] == 4 && ids[1] == 5 && ids[2] == -7,
                "writes 2 ids only, got %d %d %d", ids[0], ids[1], ids[2]);
    expect_true(sp[1].off == 2 && sp[1].len == 4, "span 1 at 2+4, got %d+%d",
                sp[1].off, sp[1].len);
    n = vocab_encode(&v, "i love china i love china", ids, NULL, 2, &unk, &err);
    expect_true(n == 6 && ids[1] == 5, "no spans: same, got %d", n);

    n = vocab_encode(&v, "bad \xC0\xAF", ids, NULL, 8, &unk, &err);
    expect_true(n == -1 && strstr(err.msg, "UTF-8"), "invalid text: -1, got %d \"%s\"",
                n, err.msg);
    vocab_free(&v);

    /* Chinese, character level */
    Vocab c;
    const char *cw[] = {"我", "爱", "中", "国"};
    make_vocab(&c, TOK_CHAR, cw, 4);
    n = vocab_encode(&c, "我爱中国!", ids, NULL, 8, &unk, &err);
    expect_true(n == 5 && unk == 1 && ids[3] == 7 && ids[4] == TOK_UNK,
                "5 chars, 1 unknown; got %d %d", n, unk);
    vocab_free(&c);
}

static void test_decode(void **state)
{
    (void)state;
    Vocab v;
    const char *w[] = {"i", "love", "china"};
    make_vocab(&v, TOK_WORD, w, 3);
    char out[64];
    int ids[] = {TOK_BOS, 4, TOK_PAD, 5, 6, TOK_EOS, 5, 5};
    size_t n = vocab_decode(&v, ids, 8, out, sizeof out);
    expect_true(strcmp(out, "i love china") == 0 && n == 12,
                "\"i love china\" (12), got \"%s\" (%zu)", out, n);
    n = vocab_decode(&v, ids, 8, out, 5);
    expect_true(strcmp(out, "i lo") == 0 && n == 12,
                "truncated \"i lo\", full length 12; got \"%s\" %zu", out, n);
    n = vocab_decode(&v, ids, 8, NULL, 0);
    expect_true(n == 12, "cap 0 measures: 12, got %zu", n);
    int unk[] = {TOK_UNK, 99};
    vocab_decode(&v, unk, 2, out, sizeof out);
    expect_true(strcmp(out, "<unk> <?>") == 0, "\"<unk> <?>\", got \"%s\"", out);
    vocab_decode(&v, ids, 0, out, sizeof out);
    expect_true(out[0] == 0, "empty, got \"%s\"", out);
    vocab_free(&v);

    Vocab c;
    const char *cw[] = {"我", "爱", " ", "中"};
    make_vocab(&c, TOK_CHAR, cw, 4);
    int cids[] = {TOK_BOS, 4, 5, 6, 7, TOK_EOS, 4};
    n = vocab_decode(&c, cids, 7, out, sizeof out);
    expect_true(strcmp(out, "我爱 中") == 0 && n == 10,
                "char mode concatenates: \"我爱 中\" (10), got \"%s\" (%zu)", out, n);
    vocab_free(&c);
}

static void test_copy(void **state)
{
    (void)state;
    Vocab v, c;
    const char *w[] = {"i", "love", "中国"};
    make_vocab(&v, TOK_CHAR, w, 3);
    v.lower = 1;
    TfErr err = {{0}};
    expect_true(vocab_copy(&c, &v, &err) == 0, "copy: %s", err.msg);
    expect_true(c.n == v.n && c.mode == v.mode && c.lower == v.lower,
                "same size, mode, lower; got %d/%d %d/%d %d/%d", c.n, v.n, c.mode,
                v.mode, c.lower, v.lower);
    for (int i = 0; i < v.n; i++) {
        expect_true(strcmp(c.tok[i], v.tok[i]) == 0 && c.tok[i] != v.tok[i],
                    "token %d equal and owned: \"%s\"", i, c.tok[i]);
        expect_true(vocab_find(&c, v.tok[i], (int)strlen(v.tok[i])) == i,
                    "copy finds \"%s\" at %d", v.tok[i], i);
    }
    vocab_add(&c, "new", 3, &err);
    expect_true(v.n == 7 && vocab_find(&v, "new", 3) == -1, "%s",
                "the original is untouched");
    vocab_free(&c);
    vocab_free(&v);
}

/* ---- random bytes ------------------------------------------------------ */

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

/* A random string without NUL: ASCII, spaces, punctuation, valid multi-byte
 * characters and random high bytes, so both valid and invalid text occur. */
static size_t random_text(char *s, size_t cap, uint32_t *x)
{
    static const char *const PIECES[] = {" ", "?", "\t", "中", "？", "é",
                                         "\xF0\x9F\x98\x80", "\xE3\x80\x80"};
    size_t n = 0, want = lcg(x) % 48;
    while (n < want && n + 5 < cap) {
        uint32_t r = lcg(x) % 10;
        if (r < 4) {
            s[n++] = (char)('a' + lcg(x) % 26);
        } else if (r < 8) {
            const char *p = PIECES[lcg(x) % 8];
            memcpy(s + n, p, strlen(p));
            n += strlen(p);
        } else {
            s[n++] = (char)(1 + lcg(x) % 255); /* anything but NUL */
        }
    }
    s[n] = 0;
    return n;
}

static void test_random_bytes(void **state)
{
    (void)state;
    Vocab wv, cv;
    const char *w[] = {"a", "b", "中", "？", "?"};
    make_vocab(&wv, TOK_WORD, w, 5);
    make_vocab(&cv, TOK_CHAR, w, 5);
    wv.lower = 1;
    uint32_t x = 2024;
    int n_valid = 0, n_invalid = 0;
    for (int it = 0; it < 100000; it++) {
        char s[256];
        size_t len = random_text(s, sizeof s, &x);
        int valid = ref_valid(s, len);
        n_valid += valid;
        n_invalid += !valid;
        expect_true((utf8_check(s, len, NULL) == 0) == valid,
                    "utf8_check agrees with RFC 3629 on case %d", it);
        for (int m = 0; m < 2; m++) {
            const Vocab *v = m ? &cv : &wv;
            TokSpan sp[8];
            int ids[8], unk = -1;
            int ns = tok_split(v->mode, s, len, sp, 8, NULL);
            int ne = vocab_encode(v, s, ids, NULL, 8, &unk, NULL);
            if (!valid) {
                expect_true(ns == -1 && ne == -1, "invalid text: -1, got %d %d", ns, ne);
                continue;
            }
            expect_true(ns >= 0 && ne == ns, "valid text: counts agree, %d %d", ns, ne);
            int prev_end = 0;
            for (int i = 0; i < ns && i < 8; i++) {
                expect_true(sp[i].off >= prev_end && sp[i].len > 0 &&
                                (size_t)(sp[i].off + sp[i].len) <= len,
                            "span %d in order and in bounds", i);
                prev_end = sp[i].off + sp[i].len;
            }
            for (int i = 0; i < ne && i < 8; i++)
                expect_true(ids[i] >= 0 && ids[i] < v->n, "id %d in range", ids[i]);
        }
    }
    printf("  100000 random strings: %d valid, %d invalid\n", n_valid, n_invalid);
    expect_true(n_valid > 10000 && n_invalid > 10000, "%s",
                "both kinds well represented");
    vocab_free(&wv);
    vocab_free(&cv);
}

int main(void)
{
    TU_RUN(NULL, NULL,
           cmocka_unit_test(test_utf8_valid),
           cmocka_unit_test(test_utf8_invalid),
           cmocka_unit_test(test_word_split),
           cmocka_unit_test(test_char_split),
           cmocka_unit_test(test_vocab_add),
           cmocka_unit_test(test_encode),
           cmocka_unit_test(test_decode),
           cmocka_unit_test(test_copy),
           cmocka_unit_test(test_random_bytes));
}
