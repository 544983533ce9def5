/* text.c - sentences to ids and back, for any model (text.h). */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marian_tok.h"

int tf_text_ids(const TfModel *m, int tgt, const char *text, int *ids, TokSpan *spans, int max,
                int *n_unk, TfErr *err)
{
    if (m->cfg.kind != TF_KIND_MARIAN)
        return vocab_encode(tgt ? &m->tgt_vocab : &m->src_vocab, text, ids, spans, max, n_unk, err);
    if (!m->tok)
        return tf_fail(err, "this MarianMT model has no source.spm and target.spm to split the text "
                            "(open its folder, or give ids)");
    if (tgt) {
        int n = marian_encode_target(m->tok, &m->tgt_vocab, text, ids, max, n_unk, err);
        for (int i = 0; spans && i < n && i < max; i++)
            spans[i] = (TokSpan){0, 0};
        return n;
    }
    return marian_encode(m->tok, &m->src_vocab, text, ids, spans, max, n_unk, err); /* where each piece is */
}

int tf_lang_tag(const TfModel *m, const char *lang, char *tag, size_t cap, TfErr *err)
{
    size_t l = strlen(lang);
    int bare = !(l >= 5 && !strncmp(lang, ">>", 2) && !strcmp(lang + l - 2, "<<"));
    snprintf(tag, cap, bare ? ">>%s<<" : "%s", lang);
    if (vocab_find(&m->src_vocab, tag, (int)strlen(tag)) >= 0 && marian_is_tag(tag))
        return 0;
    int ids[4], n = marian_lang_tags(&m->src_vocab, ids, 4);
    if (n == 0)
        return tf_fail(err, "%s is not in the vocabulary: this model has no language tags", tag);
    char some[256] = "";
    for (int i = 0; i < n && i < 4; i++)
        snprintf(some + strlen(some), sizeof some - strlen(some), "%s%s", i ? ", " : "",
                 vocab_token(&m->src_vocab, ids[i]));
    return tf_fail(err, "%s is not in the vocabulary; it has %d language tags (%s%s)", tag, n, some,
                   n > 4 ? ", ..." : "");
}

int tf_text_encode(const TfModel *m, const char *text, int *ids, int max, int *n_unk, TfErr *err)
{
    return tf_text_ids(m, 0, text, ids, NULL, max, n_unk, err);
}

long tf_text_decode(const TfModel *m, const int *ids, int n, char **out, TfErr *err)
{
    if (m->cfg.kind != TF_KIND_MARIAN || !m->tok) {
        char probe[1];
        size_t need = vocab_decode(&m->tgt_vocab, ids, n, probe, sizeof probe) + 1;
        if (!(*out = malloc(need)))
            return tf_fail(err, "out of memory");
        return (long)vocab_decode(&m->tgt_vocab, ids, n, *out, need);
    }
    return marian_decode(m->tok, &m->tgt_vocab, ids, n, out, err);
}

void tf_text_decode_to(const TfModel *m, const int *ids, int n, char *out, size_t cap)
{
    TfErr err;
    char *t = NULL;
    tf_text_decode(m, ids, n, &t, &err);
    snprintf(out, cap, "%s", t ? t : "");
    free(t);
}
