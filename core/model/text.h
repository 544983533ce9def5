/* text.h - sentences to ids and back, for any model.
 *
 * A MarianMT model splits its text with the folder's sentencepiece rules
 * (marian_tok.h); ours uses its vocabulary's words or characters
 * (vocab.h). Whatever turns typed text into ids or ids into text (the
 * window, the command line, the lessons) comes here, whichever kind of
 * model it holds. */
#ifndef TF_TEXT_H
#define TF_TEXT_H

#include <stddef.h>

#include "err.h"
#include "model.h"

/* Text to source ids and target ids to text for any model: a MarianMT
 * folder's sentencepiece rules (marian_tok.h; </s> appended), else our
 * vocabulary's words or characters. decode mallocs *out. */
int tf_text_encode(const TfModel *m, const char *text, int *ids, int max, int *n_unk, TfErr *err);
/* The one tokenizer choice: the source side (tgt 0; a MarianMT source ends
 * in </s>) or the target side (tgt 1: the decoder's input after the start
 * token, no </s>) as the model tokenizes it. Writes up to max ids (and
 * spans: {0, 0} for sentencepiece pieces); returns how many the text has
 * (> max: cut) or -1. */
int tf_text_ids(const TfModel *m, int tgt, const char *text, int *ids, TokSpan *spans, int max,
                int *n_unk, TfErr *err);
/* The language tag ">>lang<<" (lang given bare or with its >> <<) when the
 * vocabulary holds it; else -1 with err naming the tag and some it has. */
int tf_lang_tag(const TfModel *m, const char *lang, char *tag, size_t cap, TfErr *err);
long tf_text_decode(const TfModel *m, const int *ids, int n, char **out, TfErr *err);
/* The same into out, cut to cap ("" when it cannot be decoded). */
void tf_text_decode_to(const TfModel *m, const int *ids, int n, char *out, size_t cap);

#endif
