// spm.cc - the C wrapper over libsentencepiece (see spm.h). No exception
// leaves this file: every entry point catches and reports through TfErr.
#include <sentencepiece_processor.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "spm.h"
}

struct SpmModel {
    sentencepiece::SentencePieceProcessor sp;
};

extern "C" SpmModel *spm_load(const char *path, TfErr *err)
{
    try {
        SpmModel *s = new SpmModel;
        auto st = s->sp.Load(path);
        if (!st.ok()) {
            tf_fail(err, "%s: not a sentencepiece model (%s)", path, st.ToString().c_str());
            delete s;
            return nullptr;
        }
        return s;
    } catch (...) {
        tf_fail(err, "%s: cannot load the sentencepiece model", path);
        return nullptr;
    }
}

extern "C" void spm_free(SpmModel *s) { delete s; }

extern "C" int spm_encode(const SpmModel *s, const char *text, char ***pieces, TfErr *err)
{
    *pieces = nullptr;
    try {
        std::vector<std::string> v;
        auto st = s->sp.Encode(text, &v);
        if (!st.ok())
            return tf_fail(err, "sentencepiece: %s", st.ToString().c_str());
        char **out = static_cast<char **>(calloc(v.size() + 1, sizeof *out));
        if (!out)
            return tf_fail(err, "out of memory for the pieces");
        for (size_t i = 0; i < v.size(); i++) {
            out[i] = strdup(v[i].c_str());
            if (!out[i]) {
                spm_pieces_free(out, (int)i);
                return tf_fail(err, "out of memory for the pieces");
            }
        }
        *pieces = out;
        return (int)v.size();
    } catch (...) {
        return tf_fail(err, "sentencepiece failed on the text");
    }
}

extern "C" void spm_pieces_free(char **pieces, int n)
{
    if (!pieces)
        return;
    for (int i = 0; i < n; i++)
        free(pieces[i]);
    free(pieces);
}

extern "C" long spm_decode(const SpmModel *s, const char *const *pieces, int n, char **out, TfErr *err)
{
    *out = nullptr;
    try {
        std::vector<std::string> v(pieces, pieces + n);
        std::string text;
        auto st = s->sp.Decode(v, &text);
        if (!st.ok())
            return tf_fail(err, "sentencepiece: %s", st.ToString().c_str());
        *out = strdup(text.c_str());
        if (!*out)
            return tf_fail(err, "out of memory for the text");
        return (long)text.size();
    } catch (...) {
        return tf_fail(err, "sentencepiece failed decoding");
    }
}
