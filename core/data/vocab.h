/* vocab.h - vocabularies and tokenisation, UTF-8 aware.
 *
 * Ids 0..3 are always <pad> <bos> <eos> <unk>. A vocabulary is either
 * word-level (tokens split on whitespace; a trailing ? ! . , ; : or its
 * full-width form is split off as its own token) or character-level (every
 * Unicode code point is a token, spaces included). Invalid UTF-8 is an error,
 * never silently replaced. Unknown tokens map to <unk> and are counted, so the
 * caller can report them. */
#ifndef TF_VOCAB_H
#define TF_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "utf8.h"

#include "err.h"

enum { TOK_PAD = 0, TOK_BOS = 1, TOK_EOS = 2, TOK_UNK = 3, TOK_NSPECIAL = 4 };

#define VOCAB_MAX_TOKENS 1000000
#define VOCAB_MAX_TOKEN_BYTES 255

typedef enum TokMode { TOK_WORD = 0, TOK_CHAR = 1 } TokMode;

typedef struct TokSpan {
    int off, len; /* byte range of one token in the input text */
} TokSpan;

typedef struct Vocab {
    TokMode mode;
    int lower;    /* word mode: ASCII letters lowercased before lookup */
    int n, cap;   /* tokens in use, allocated */
    char **tok;   /* (n) NUL-terminated UTF-8 strings, owned */
    int *slot;    /* (nslot) open-addressing hash table of id+1, 0 = empty */
    int nslot;
} Vocab;

/* A vocabulary holding just the four special tokens. */
int vocab_init(Vocab *v, TokMode mode, TfErr *err);
void vocab_free(Vocab *v);
/* Deep copy. */
int vocab_copy(Vocab *dst, const Vocab *src, TfErr *err);

/* Id of s[0..len), adding it if new. Returns the id, or -1 with err set
 * (invalid UTF-8, empty, too long, too many tokens, out of memory). */
int vocab_add(Vocab *v, const char *s, int len, TfErr *err);
/* A word-level vocabulary of n tokens: the four specials, then t4 t5 ...
 * t(n-1) (random models, benchmarks and tests). */
int vocab_numbered(Vocab *v, int n, TfErr *err);
/* A vocabulary of exactly these n tokens, id i = toks[i] (a model that
 * brings its own specials, e.g. Marian's </s> 0 <unk> 1 ... <pad> V-1).
 * Fails on an empty, invalid or repeated token. */
int vocab_from_tokens(Vocab *v, TokMode mode, const char *const *toks, int n, TfErr *err);

/* Id of s[0..len) or -1 if absent (exact bytes, no lowercasing). */
int vocab_find(const Vocab *v, const char *s, int len);
/* The token string of id, or "<?>" when id is out of range. */
const char *vocab_token(const Vocab *v, int id);

/* Split text into token spans. Returns the number of tokens in the text
 * (which may exceed max_spans; only max_spans spans are written), or -1 with
 * err set when the text is not valid UTF-8. */
int tok_split(TokMode mode, const char *text, size_t len, TokSpan *spans,
              int max_spans, TfErr *err);

/* Tokenise and look up. Writes up to max ids (and spans, if not NULL).
 * Returns the number of tokens the text holds (> max means truncated), or -1
 * on invalid UTF-8. *n_unk (if not NULL) receives how many written ids are
 * <unk>. Text is text: a special token typed in it ("<pad>", "<bos>",
 * "<eos>", "<unk>") is an unknown word and becomes <unk>. */
int vocab_encode(const Vocab *v, const char *text, int *ids, TokSpan *spans,
                 int max, int *n_unk, TfErr *err);

/* Join ids into text: word mode separates with spaces, char mode
 * concatenates. <pad> and <bos> are skipped, decoding stops at <eos>.
 * Always NUL-terminates (truncating if cap is too small). Returns the length
 * the full text would need (like snprintf). */
size_t vocab_decode(const Vocab *v, const int *ids, int n, char *out,
                    size_t cap);



#endif
