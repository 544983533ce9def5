/* marian_tok.h - MarianTokenizer's rules over sentencepiece (spm.h).
 *
 * Source: a leading >>lang<< tag (the regular expression >>.+<< matched at
 * the start, greedy, within the line) is kept as one token; every match of
 * it anywhere is removed from the text; the rest goes through source.spm;
 * each piece becomes its id in vocab.json (a missing piece is <unk>); </s>
 * is appended. Target: ids -> pieces (</s>, <pad>, <unk> and >>tags<<
 * skipped) -> target.spm's decoding. The special ids are the model's
 * (config.json), kept with the tokenizer as MarianTokenizer keeps its
 * eos, unk and pad tokens. */
#ifndef TF_MARIAN_TOK_H
#define TF_MARIAN_TOK_H
#include "err.h"
#include "spm.h"
#include "vocab.h"

/* The ids the rules add or skip: </s>, <unk>, <pad>. */
typedef struct MarianIds {
    int eos, unk, pad;
} MarianIds;

typedef struct MarianTok {
    SpmModel *src, *tgt;
    MarianIds ids;
} MarianTok;

/* dir/source.spm and dir/target.spm, with the model's special ids. */
int marian_tok_open(MarianTok *t, const char *dir, MarianIds ids, TfErr *err);
void marian_tok_free(MarianTok *t);

/* Ids of text: writes up to max, returns how many the text has (</s>
 * included; > max means cut) or -1. *n_unk (if not NULL) counts <unk>s.
 * spans (if not NULL, max of them) gets where each id's piece is in text
 * (the tag whole, a piece without its ▁; {0, 0} for </s> and for pieces
 * sentencepiece normalised, which spell no bytes of text), so an <unk>
 * can be shown as what was typed.
 * A text of more words than max is measured before it is split: only its
 * first max words go through sentencepiece (the ids kept are the same)
 * and the count is then a lower bound (its words + </s>). */
int marian_encode(const MarianTok *t, const Vocab *v, const char *text, int *ids,
                  TokSpan *spans, int max, int *n_unk, TfErr *err);

/* Whitespace-separated words of text: the fewest pieces sentencepiece can
 * make of it (it never joins two words into one piece). */
int marian_min_pieces(const char *text);

/* The target side for the decoder's input: target.spm's pieces, no </s>
 * (the decoder reads start + pieces; </s> is what it should predict last). */
int marian_encode_target(const MarianTok *t, const Vocab *v, const char *text,
                         int *ids, int max, int *n_unk, TfErr *err);

/* 1 when piece p is a language tag ">>xxx<<". */
int marian_is_tag(const char *p);
/* The ids of v's language tags in id order: writes up to max, returns how
 * many there are. */
int marian_lang_tags(const Vocab *v, int *ids, int max);

/* Text of ids (malloc'd in *out); returns its length or -1. */
long marian_decode(const MarianTok *t, const Vocab *v, const int *ids, int n,
                   char **out, TfErr *err);

#endif
