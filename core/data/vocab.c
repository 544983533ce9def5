/* vocab.c - vocabularies, tokenisation and UTF-8 checks (see vocab.h). */
#include "vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

static const char *SPECIALS[TOK_NSPECIAL] = {"<pad>", "<bos>", "<eos>", "<unk>"};

/* A word's slot in the table of nslot (a power of two) slots: h & (nslot - 1). */
static uint32_t hash_bytes(const char *s, int len)
{
    return tf_fnv_fold(tf_fnv_bytes(TF_FNV_SEED, s, (size_t)len));
}

static int rehash(Vocab *v, int nslot)
{
    int *slot = calloc((size_t)nslot, sizeof *slot);
    if (!slot)
        return -1;
    for (int id = 0; id < v->n; id++) {
        const char *t = v->tok[id];
        uint32_t h = hash_bytes(t, (int)strlen(t)) & (uint32_t)(nslot - 1);
        while (slot[h])
            h = (h + 1) & (uint32_t)(nslot - 1);
        slot[h] = id + 1;
    }
    free(v->slot);
    v->slot = slot;
    v->nslot = nslot;
    return 0;
}

int vocab_init(Vocab *v, TokMode mode, TfErr *err)
{
    memset(v, 0, sizeof *v);
    v->mode = mode;
    for (int i = 0; i < TOK_NSPECIAL; i++) {
        if (vocab_add(v, SPECIALS[i], (int)strlen(SPECIALS[i]), err) < 0) {
            vocab_free(v);
            return -1;
        }
    }
    return 0;
}

int vocab_from_tokens(Vocab *v, TokMode mode, const char *const *toks, int n, TfErr *err)
{
    memset(v, 0, sizeof *v);
    v->mode = mode;
    for (int i = 0; i < n; i++) {
        int len = (int)strlen(toks[i]);
        if (vocab_find(v, toks[i], len) >= 0) {
            vocab_free(v);
            return tf_fail(err, "token '%s' appears twice", toks[i]);
        }
        if (vocab_add(v, toks[i], len, err) < 0) {
            vocab_free(v);
            return -1;
        }
    }
    return 0;
}

void vocab_free(Vocab *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n; i++)
        free(v->tok[i]);
    free(v->tok);
    free(v->slot);
    memset(v, 0, sizeof *v);
}

int vocab_copy(Vocab *dst, const Vocab *src, TfErr *err)
{
    memset(dst, 0, sizeof *dst);
    dst->mode = src->mode;
    dst->lower = src->lower;
    for (int i = 0; i < src->n; i++) {
        if (vocab_add(dst, src->tok[i], (int)strlen(src->tok[i]), err) != i) {
            vocab_free(dst);
            return tf_fail(err, "vocabulary copy failed at token %d", i);
        }
    }
    return 0;
}

int vocab_find(const Vocab *v, const char *s, int len)
{
    if (!v->nslot)
        return -1;
    uint32_t mask = (uint32_t)(v->nslot - 1);
    uint32_t h = hash_bytes(s, len) & mask;
    while (v->slot[h]) {
        const char *t = v->tok[v->slot[h] - 1];
        if ((int)strlen(t) == len && memcmp(t, s, (size_t)len) == 0)
            return v->slot[h] - 1;
        h = (h + 1) & mask;
    }
    return -1;
}

int vocab_add(Vocab *v, const char *s, int len, TfErr *err)
{
    if (len <= 0)
        return tf_fail(err, "empty token");
    if (len > VOCAB_MAX_TOKEN_BYTES)
        return tf_fail(err, "token longer than %d bytes", VOCAB_MAX_TOKEN_BYTES);
    if (memchr(s, 0, (size_t)len))
        return tf_fail(err, "token contains a NUL byte");
    size_t bad;
    if (utf8_check(s, (size_t)len, &bad))
        return tf_fail(err, "token is not valid UTF-8 (byte %zu)", bad);
    int id = vocab_find(v, s, len);
    if (id >= 0)
        return id;
    if (v->n >= VOCAB_MAX_TOKENS)
        return tf_fail(err, "vocabulary larger than %d tokens", VOCAB_MAX_TOKENS);
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 64;
        char **tok = realloc(v->tok, (size_t)cap * sizeof *tok);
        if (!tok)
            return tf_fail(err, "out of memory for the vocabulary");
        v->tok = tok;
        v->cap = cap;
    }
    if ((v->n + 1) * 2 > v->nslot) {
        int nslot = v->nslot ? v->nslot * 2 : 128;
        while ((v->n + 1) * 2 > nslot)
            nslot *= 2;
        if (rehash(v, nslot))
            return tf_fail(err, "out of memory for the vocabulary");
    }
    char *t = malloc((size_t)len + 1);
    if (!t)
        return tf_fail(err, "out of memory for the vocabulary");
    memcpy(t, s, (size_t)len);
    t[len] = 0;
    id = v->n++;
    v->tok[id] = t;
    uint32_t mask = (uint32_t)(v->nslot - 1);
    uint32_t h = hash_bytes(s, len) & mask;
    while (v->slot[h])
        h = (h + 1) & mask;
    v->slot[h] = id + 1;
    return id;
}

const char *vocab_token(const Vocab *v, int id)
{
    if (id < 0 || id >= v->n)
        return "<?>";
    return v->tok[id];
}

static int is_space(uint32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' ||
           cp == '\f' || cp == 0x3000;
}

/* Punctuation split off the end of a word: ? ! . , ; : and ？！。，；： */
static int is_tail_punct(uint32_t cp)
{
    switch (cp) {
    case '?': case '!': case '.': case ',': case ';': case ':':
    case 0xFF1F: case 0xFF01: case 0x3002: case 0xFF0C: case 0xFF1B:
    case 0xFF1A:
        return 1;
    default:
        return 0;
    }
}

static int push_span(TokSpan *spans, int max, int n, int off, int len)
{
    if (n < max) {
        spans[n].off = off;
        spans[n].len = len;
    }
    return n + 1;
}

int tok_split(TokMode mode, const char *text, size_t len, TokSpan *spans,
              int max_spans, TfErr *err)
{
    size_t bad;
    if (utf8_check(text, len, &bad))
        return tf_fail(err, "text is not valid UTF-8 (byte %zu)", bad);
    int n = 0;
    size_t i = 0;
    if (mode == TOK_CHAR) {
        /* trim surrounding whitespace, keep inner spaces as tokens */
        size_t end = len;
        while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t' ||
                           text[end - 1] == '\n' || text[end - 1] == '\r'))
            end--;
        while (i < end && (text[i] == ' ' || text[i] == '\t' ||
                           text[i] == '\n' || text[i] == '\r'))
            i++;
        while (i < end) {
            uint32_t cp;
            int k = utf8_next(text + i, end - i, &cp);
            n = push_span(spans, max_spans, n, (int)i, k);
            i += (size_t)k;
        }
        return n;
    }
    while (i < len) {
        uint32_t cp;
        int k = utf8_next(text + i, len - i, &cp);
        if (is_space(cp)) {
            i += (size_t)k;
            continue;
        }
        size_t start = i, last = i;
        int last_len = 0;
        while (i < len) {
            k = utf8_next(text + i, len - i, &cp);
            if (is_space(cp))
                break;
            last = i;
            last_len = k;
            i += (size_t)k;
        }
        /* split one trailing punctuation mark off a longer word */
        uint32_t lastcp;
        utf8_next(text + last, (size_t)last_len, &lastcp);
        if (last > start && is_tail_punct(lastcp)) {
            n = push_span(spans, max_spans, n, (int)start, (int)(last - start));
            n = push_span(spans, max_spans, n, (int)last, last_len);
        } else {
            n = push_span(spans, max_spans, n, (int)start, (int)(i - start));
        }
    }
    return n;
}

int vocab_encode(const Vocab *v, const char *text, int *ids, TokSpan *spans,
                 int max, int *n_unk, TfErr *err)
{
    TokSpan local[64];
    TokSpan *sp = spans;
    size_t len = strlen(text);
    int n;
    if (!sp) {
        /* count first, then split again in chunks that fit the local array */
        n = tok_split(v->mode, text, len, NULL, 0, err);
    } else {
        n = tok_split(v->mode, text, len, sp, max, err);
    }
    if (n < 0)
        return -1;
    int unk = 0, want = n < max ? n : max;
    if (!sp) {
        /* re-split into a temporary buffer large enough for want spans */
        TokSpan *tmp = want <= 64 ? local : malloc((size_t)want * sizeof *tmp);
        if (!tmp)
            return tf_fail(err, "out of memory while tokenising");
        tok_split(v->mode, text, len, tmp, want, NULL);
        sp = tmp;
    }
    for (int i = 0; i < want; i++) {
        const char *s = text + sp[i].off;
        int l = sp[i].len, id;
        if (v->lower && l <= VOCAB_MAX_TOKEN_BYTES) {
            char buf[VOCAB_MAX_TOKEN_BYTES];
            for (int j = 0; j < l; j++)
                buf[j] = (s[j] >= 'A' && s[j] <= 'Z') ? (char)(s[j] + 32) : s[j];
            id = vocab_find(v, buf, l);
        } else {
            id = vocab_find(v, s, l);
        }
        /* typed text is text: "<pad>", "<bos>", "<eos>" written in a
         * sentence are unknown words, never control tokens */
        if (id < 0 || id < TOK_NSPECIAL) {
            id = TOK_UNK;
            unk++;
        }
        ids[i] = id;
    }
    if (sp != spans && sp != local)
        free(sp);
    if (n_unk)
        *n_unk = unk;
    return n;
}

size_t vocab_decode(const Vocab *v, const int *ids, int n, char *out,
                    size_t cap)
{
    size_t need = 0;
    int first = 1;
    if (cap)
        out[0] = 0;
    for (int i = 0; i < n; i++) {
        if (ids[i] == TOK_EOS)
            break;
        if (ids[i] == TOK_PAD || ids[i] == TOK_BOS)
            continue;
        const char *t = vocab_token(v, ids[i]);
        size_t tl = strlen(t);
        size_t sep = (v->mode == TOK_WORD && !first) ? 1 : 0;
        for (size_t j = 0; j < sep + tl; j++) {
            char c = j < sep ? ' ' : t[j - sep];
            if (need + 1 < cap) {
                out[need] = c;
                out[need + 1] = 0;
            }
            need++;
        }
        first = 0;
    }
    return need;
}

int vocab_numbered(Vocab *v, int n, TfErr *err)
{
    if (vocab_init(v, TOK_WORD, err))
        return -1;
    char name[32];
    for (int i = TOK_NSPECIAL; i < n; i++) {
        int len = snprintf(name, sizeof name, "t%d", i);
        if (vocab_add(v, name, len, err) != i)
            return -1;
    }
    return 0;
}
