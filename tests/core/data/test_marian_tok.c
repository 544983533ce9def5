/* test_marian_tok.c - MarianTokenizer's rules over libsentencepiece,
 * compared with python sentencepiece (tools/marian_fixture.py) on 100
 * sentences: >>lang<< tags, pieces missing from vocab.json (<unk>), </s>
 * appended; and target-side decoding of random ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marian.h"
#include "marian_tok.h"
#include "test_util.h"

#define SPM "tests/fixtures/marian/spm"

/* OPUS-MT's ids: </s> 0, <unk> 1, <pad> the last. */
static void setup_tok(MarianTok *t, Vocab *v)
{
    TfErr err;
    expect_true(marian_vocab_read(SPM, v, 0, &err) == 0, "vocab: %s", err.msg);
    expect_true(marian_tok_open(t, SPM, (MarianIds){0, 1, v->n - 1}, &err) == 0, "spm models load: %s",
                err.msg);
}

/* The tokenizer set up, and the reference file `name` of SPM open. */
static FILE *open_ref(MarianTok *t, Vocab *v, const char *name)
{
    setup_tok(t, v);
    char path[256];
    snprintf(path, sizeof path, SPM "/%s", name);
    FILE *f = fopen(path, "r");
    expect_true(f != NULL, "%s opens", path);
    return f;
}

static void test_encode_matches_python(void **state)
{
    (void)state;
    MarianTok t;
    Vocab v;
    FILE *f = open_ref(&t, &v, "encode.ref");
    char line[2048];
    int n_lines = 0, n_tags = 0, n_unk_total = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        expect_true(tab != NULL, "a tab");
        *tab = 0;
        char text[1024];
        size_t o = 0;
        for (char *p = line; *p && o + 1 < sizeof text; p++) { /* "\t" stands for a tab */
            if (p[0] == '\\' && p[1] == 't') {
                text[o++] = '\t';
                p++;
            } else {
                text[o++] = *p;
            }
        }
        text[o] = 0;
        int want[256], W = 0, got[256], n_unk;
        for (char *w = strtok(tab + 1, " \n"); w; w = strtok(NULL, " \n"))
            want[W++] = atoi(w);
        TfErr err;
        int n = marian_encode(&t, &v, text, got, 256, &n_unk, &err);
        expect_true(n == W, "'%s': %d ids, python %d", text, n, W);
        for (int i = 0; i < W; i++)
            expect_true(got[i] == want[i], "'%s': id %d is %d, python %d", text, i, got[i], want[i]);
        n_tags += W > 0 && (want[0] == 2 || want[0] == 3);
        n_unk_total += n_unk;
        n_lines++;
    }
    fclose(f);
    printf("  %d sentences tokenized as python sentencepiece + MarianTokenizer's rules do "
           "(%d with a >>lang<< tag, %d <unk>s)\n", n_lines, n_tags, n_unk_total);
    expect_true(n_lines == 100 && n_tags >= 3, "100 sentences, tags among them");
    marian_tok_free(&t);
    vocab_free(&v);
}

static void test_decode_matches_python(void **state)
{
    (void)state;
    MarianTok t;
    Vocab v;
    FILE *f = open_ref(&t, &v, "decode.ref");
    char line[2048];
    int n_lines = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        *tab = 0;
        char *want = tab + 1;
        want[strcspn(want, "\n")] = 0;
        int ids[64], n = 0;
        for (char *w = strtok(line, " "); w; w = strtok(NULL, " "))
            ids[n++] = atoi(w);
        char *out;
        TfErr err;
        expect_true(marian_decode(&t, &v, ids, n, &out, &err) >= 0, "decodes: %s", err.msg);
        expect_true(strcmp(out, want) == 0, "line %d: '%s', python '%s'", n_lines + 1, out, want);
        free(out);
        n_lines++;
    }
    fclose(f);
    printf("  %d id sequences decoded as python sentencepiece does\n", n_lines);
    marian_tok_free(&t);
    vocab_free(&v);
}

static void test_bad_spm(void **state)
{
    (void)state;
    MarianTok t;
    TfErr err;
    expect_true(marian_tok_open(&t, "tests/fixtures/marian/swish_f32", (MarianIds){0, 1, 0}, &err) != 0,
                "no spm files");
    printf("  %s\n", err.msg);
    expect_true(strstr(err.msg, "source.spm is missing") != NULL && !strchr(err.msg, '\n'), "names the file");
    SpmModel *s = spm_load("tests/fixtures/marian/spm/vocab.json", &err);
    expect_true(s == NULL, "a JSON file is not a model");
    printf("  %s\n", err.msg);
}

int main(void)
{
    TU_RUN(NULL, NULL, cmocka_unit_test(test_encode_matches_python),
           cmocka_unit_test(test_decode_matches_python), cmocka_unit_test(test_bad_spm));
}
