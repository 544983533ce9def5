/* marian_tok.c - MarianTokenizer's rules (see marian_tok.h). */
#include "marian_tok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"

/* dir/name as a sentencepiece model: a missing or irregular file is named
 * before sentencepiece sees it. */
static SpmModel *load_one(const char *dir, const char *name, TfErr *err)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (access(p, F_OK) != 0) {
        tf_fail(err, "%s: %s is missing", dir, name);
        return NULL;
    }
    FILE *f = tf_fopen_regular(p, NULL, err);
    if (!f)
        return NULL;
    fclose(f);
    return spm_load(p, err);
}

int marian_tok_open(MarianTok *t, const char *dir, MarianIds ids, TfErr *err)
{
    memset(t, 0, sizeof *t);
    t->ids = ids;
    if (!(t->src = load_one(dir, "source.spm", err)) || !(t->tgt = load_one(dir, "target.spm", err))) {
        marian_tok_free(t);
        return -1;
    }
    return 0;
}

void marian_tok_free(MarianTok *t)
{
    spm_free(t->src);
    spm_free(t->tgt);
    memset(t, 0, sizeof *t);
}

/* End (one past the last '<<') of the greedy match of >>.+<< starting at
 * s[i], or 0 when none: '.' stops at a newline. */
static size_t tag_end(const char *s, size_t i)
{
    if (strncmp(s + i, ">>", 2) != 0)
        return 0;
    size_t e = 0;
    for (size_t j = i + 3; s[j] && s[j] != '\n'; j++)
        if (s[j - 1] == '<' && s[j] == '<' && j - 1 >= i + 3)
            e = j + 1;
    return e;
}

static int put(int *ids, int max, int n, int id)
{
    if (n < max)
        ids[n] = id;
    return n + 1;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The offset just after text's k-th word (its length if it has fewer). */
static size_t word_end(const char *text, int k)
{
    size_t i = 0;
    for (int w = 0; text[i] && w < k; w++) {
        while (text[i] && is_space((unsigned char)text[i]))
            i++;
        while (text[i] && !is_space((unsigned char)text[i]))
            i++;
    }
    return i;
}

int marian_min_pieces(const char *text)
{
    int n = 0, in_word = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        int space = is_space(*p);
        n += !space && !in_word;
        in_word = !space;
    }
    return n;
}

/* Where each piece came from in text: a piece is its text with ▁ for the
 * space before a word, so the pieces, in order, spell the text (the tags
 * taken out: map[k] is the offset in text of byte k of what
 * sentencepiece read). Pieces from first on get their span; those after
 * one that does not spell what follows (a normalised character) get
 * {0, 0}, as do specials. */
static void piece_spans(char **pieces, int np, const char *rest, const size_t *map, TokSpan *spans, int first,
                        int max)
{
    size_t pos = 0, len = strlen(rest);
    int ok = 1;
    for (int i = 0; i < np; i++) {
        int k = first + i;
        if (k >= max)
            break;
        spans[k] = (TokSpan){0, 0};
        if (!ok)
            continue;
        const char *p = pieces[i];
        while (!strncmp(p, "\xe2\x96\x81", 3)) { /* ▁: spaces before the word */
            p += 3;
            while (pos < len && is_space((unsigned char)rest[pos]))
                pos++;
        }
        size_t n = strlen(p);
        if (n == 0 || pos + n > len || strncmp(rest + pos, p, n) != 0) {
            ok = n == 0; /* a bare ▁ spells nothing: the next piece may still match */
            continue;
        }
        spans[k] = (TokSpan){(int)map[pos], (int)(map[pos + n - 1] + 1 - map[pos])};
        pos += n;
    }
}

/* The rules with the side's model; </s> appended when eos; spans (if not
 * NULL, max of them) where each id's piece is in text. */
static int encode_with(const SpmModel *sp, const MarianIds *sp_ids, const Vocab *v, const char *text,
                       int *ids, TokSpan *spans, int max, int eos, int *n_unk, TfErr *err)
{
    size_t len = strlen(text);
    char *rest = malloc(len + 1);
    size_t *map = spans ? malloc((len + 1) * sizeof *map) : NULL;
    if (!rest || (spans && !map)) {
        free(rest);
        free(map);
        return tf_fail(err, "out of memory for the text");
    }
    int n = 0, unk = 0, unk_id = sp_ids->unk;
    size_t o = 0, code = tag_end(text, 0);
    if (code) {
        int id = vocab_find(v, text, (int)code);
        if (spans && n < max)
            spans[n] = (TokSpan){0, (int)code};
        n = put(ids, max, n, id >= 0 ? id : unk_id);
        unk += id < 0;
    }
    for (size_t i = 0; i < len;) {
        size_t e = tag_end(text, i);
        if (e) {
            i = e;
            continue;
        }
        if (map)
            map[o] = i;
        rest[o++] = text[i++];
    }
    rest[o] = 0;
    /* measured before sentencepiece splits it: a text of more words than
     * the model takes is too long whatever its pieces (each word is one at
     * least), and splitting 600,000 words would cost hundreds of MB */
    int words = marian_min_pieces(rest), cut = n + words + eos > max;
    if (cut) /* only the first max words: enough for the ids that are kept */
        rest[word_end(rest, max)] = 0;
    char **pieces;
    int np = spm_encode(sp, rest, &pieces, err);
    if (np >= 0 && spans)
        piece_spans(pieces, np, rest, map, spans, n, max);
    free(rest);
    free(map);
    if (np < 0)
        return -1;
    for (int i = 0; i < np; i++) {
        int id = vocab_find(v, pieces[i], (int)strlen(pieces[i]));
        if (id < 0 || id == sp_ids->pad || id == sp_ids->eos)
            id = unk_id; /* typed specials are text, not tokens */
        unk += id == unk_id;
        n = put(ids, max, n, id);
    }
    spm_pieces_free(pieces, np);
    if (eos) {
        if (spans && n < max)
            spans[n] = (TokSpan){0, 0};
        n = put(ids, max, n, sp_ids->eos);
    }
    if (n_unk)
        *n_unk = unk;
    return cut && n < words + eos ? words + eos : n; /* cut: a lower bound */
}

int marian_encode(const MarianTok *t, const Vocab *v, const char *text, int *ids, TokSpan *spans, int max,
                  int *n_unk, TfErr *err)
{
    return encode_with(t->src, &t->ids, v, text, ids, spans, max, 1, n_unk, err);
}

int marian_encode_target(const MarianTok *t, const Vocab *v, const char *text, int *ids, int max,
                         int *n_unk, TfErr *err)
{
    return encode_with(t->tgt, &t->ids, v, text, ids, NULL, max, 0, n_unk, err);
}

int marian_is_tag(const char *p)
{
    size_t l = strlen(p);
    return l >= 5 && !strncmp(p, ">>", 2) && !strcmp(p + l - 2, "<<");
}

int marian_lang_tags(const Vocab *v, int *ids, int max)
{
    int n = 0;
    for (int i = 0; i < v->n; i++)
        if (marian_is_tag(vocab_token(v, i))) {
            if (n < max)
                ids[n] = i;
            n++;
        }
    return n;
}

long marian_decode(const MarianTok *t, const Vocab *v, const int *ids, int n, char **out, TfErr *err)
{
    const char **pieces = malloc(((size_t)n + 1) * sizeof *pieces);
    if (!pieces)
        return tf_fail(err, "out of memory for the pieces");
    int k = 0;
    for (int i = 0; i < n; i++) {
        int id = ids[i];
        if (id == t->ids.eos || id == t->ids.pad || id == t->ids.unk || id < 0 || id >= v->n)
            continue;
        const char *p = vocab_token(v, id);
        if (marian_is_tag(p))
            continue;
        pieces[k++] = p;
    }
    long r = spm_decode(t->tgt, pieces, k, out, err);
    free(pieces);
    return r;
}
