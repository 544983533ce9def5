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

/* A reference line split at its tab (which must be there): the right side. */
static char *split_ref(char *line)
{
    char *tab = strchr(line, '\t');
    expect_true(tab != NULL, "a tab in '%s'", line);
    *tab = 0;
    return tab + 1;
}

/* The ids written in text, split at spaces (at most cap); how many. */
static int parse_ids(char *text, int *ids, int cap)
{
    int n = 0;
    for (char *w = strtok(text, " \n"); w && n < cap; w = strtok(NULL, " \n"))
        ids[n++] = atoi(w);
    return n;
}

/* One line of a reference file: left and right of its tab, its number. */
typedef void (*RefLine)(MarianTok *t, Vocab *v, char *left, char *right, int line_no, void *user);

/* fn on each line of the reference file name, with the tokenizer set up;
 * how many lines there were. */
static int each_ref_line(const char *name, RefLine fn, void *user)
{
    MarianTok t;
    Vocab v;
    FILE *f = open_ref(&t, &v, name);
    char line[2048];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *right = split_ref(line);
        fn(&t, &v, line, right, ++n, user);
    }
    if (f)
        fclose(f);
    marian_tok_free(&t);
    vocab_free(&v);
    return n;
}

typedef struct EncodeSeen {
    int n_tags, n_unk;
    int pieces, spanned, bad_span; /* ids but </s>; with a span; a span that is not the piece */
} EncodeSeen;

/* "text<TAB>ids": the text encodes to the ids ("\t" in it stands for a tab). */
static void check_encode(MarianTok *t, Vocab *v, char *line, char *right, int line_no, void *user)
{
    (void)line_no;
    EncodeSeen *seen = user;
    char text[1024];
    size_t o = 0;
    for (char *p = line; *p && o + 1 < sizeof text; p++) {
        if (p[0] == '\\' && p[1] == 't') {
            text[o++] = '\t';
            p++;
        } else {
            text[o++] = *p;
        }
    }
    text[o] = 0;
    int want[256], got[256], n_unk;
    int W = parse_ids(right, want, 256);
    TfErr err;
    int n = marian_encode(t, v, text, got, NULL, 256, &n_unk, &err);
    expect_true(n == W, "'%s': %d ids, python %d", text, n, W);
    for (int i = 0; i < W; i++)
        expect_true(got[i] == want[i], "'%s': id %d is %d, python %d", text, i, got[i], want[i]);
    seen->n_tags += W > 0 && (want[0] == 2 || want[0] == 3);
    seen->n_unk += n_unk;
    /* the spans: each piece (without its ▁) is the text at its span, an
     * <unk> what was typed there */
    TokSpan sp[256];
    int n2 = marian_encode(t, v, text, got, sp, 256, NULL, &err);
    for (int i = 0; i + 1 < n2 && i < 256; i++) {
        seen->pieces++;
        if (sp[i].len <= 0)
            continue;
        seen->spanned++;
        const char *tok = vocab_token(v, got[i]);
        while (!strncmp(tok, "\xe2\x96\x81", 3))
            tok += 3;
        int unk = got[i] == 1; /* the fixture's <unk> (config.json) */
        int same = unk ? !memchr(text + sp[i].off, ' ', (size_t)sp[i].len)
                       : (int)strlen(tok) == sp[i].len && !strncmp(text + sp[i].off, tok, (size_t)sp[i].len);
        if (!same && seen->bad_span++ < 3)
            printf("  '%s': piece %d '%s' at span %d+%d reads '%.*s'\n", text, i, tok, sp[i].off, sp[i].len,
                   sp[i].len, text + sp[i].off);
    }
}

static void test_encode_matches_python(void **state)
{
    (void)state;
    EncodeSeen seen = {0};
    int n_lines = each_ref_line("encode.ref", check_encode, &seen);
    printf("  %d sentences tokenized as python sentencepiece + MarianTokenizer's rules do "
           "(%d with a >>lang<< tag, %d <unk>s)\n", n_lines, seen.n_tags, seen.n_unk);
    expect_true(n_lines == 100 && seen.n_tags >= 3, "100 sentences, tags among them");
    printf("  %d of %d pieces found in their text\n", seen.spanned, seen.pieces);
    expect_true(seen.bad_span == 0 && seen.spanned * 10 >= seen.pieces * 9,
                "pieces where they are in the text: %d of %d, %d wrong", seen.spanned, seen.pieces, seen.bad_span);
}

/* "ids<TAB>text": the ids decode to the text. */
static void check_decode(MarianTok *t, Vocab *v, char *line, char *want, int line_no, void *user)
{
    (void)user;
    want[strcspn(want, "\n")] = 0;
    int ids[64], n = parse_ids(line, ids, 64);
    char *out;
    TfErr err;
    expect_true(marian_decode(t, v, ids, n, &out, &err) >= 0, "decodes: %s", err.msg);
    expect_true(strcmp(out, want) == 0, "line %d: '%s', python '%s'", line_no, out, want);
    free(out);
}

static void test_decode_matches_python(void **state)
{
    (void)state;
    int n_lines = each_ref_line("decode.ref", check_decode, NULL);
    printf("  %d id sequences decoded as python sentencepiece does\n", n_lines);
    expect_true(n_lines > 0, "decode.ref has lines");
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
