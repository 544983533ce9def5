/* lesson_predict.c - what a lesson's checks compute (see lesson.h): a
 * prediction against the pass the model made (the hidden row, its argmax,
 * the tokens offered, the number asked for), the numbers written in
 * choices, the per-learner order of quiz choices, and brace markup as it is
 * drawn. The parser (lesson.c) reads the directives; this file needs no
 * parsing. */
#include "lesson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "stage.h"
#include "trace.h"
#include "vocab.h"

/* ---- @predict against a computed trace ---- */

int lesson_predict_stage_ok(int stage, int *decoder)
{
    if (stage < 0 || stage >= ST_COUNT)
        return 0;
    StageKind k = stage_info((StageId)stage)->kind;
    if (k != SK_SCORES && k != SK_WEIGHTS)
        return 0;
    if (decoder)
        *decoder = (stage_info((StageId)stage)->flags & SF_DECODER) != 0;
    return 1;
}

/* The row or column a query names among n tokens ids (or #N). */
static int find_token(const char *q, const int *ids, int n, const Vocab *voc)
{
    if (!q || !q[0])
        return -1;
    if (q[0] == '#') {
        int pos = atoi(q + 1);
        return pos >= 1 && pos <= n ? pos - 1 : -1;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(vocab_token(voc, ids[i]), q) == 0)
            return i;
    return -1;
}

int lesson_predict_row(const LessonPredict *p, const TfTrace *tr, const Vocab *voc, int decoder, int b)
{
    if (b < 0 || b >= tr->B)
        return -1;
    int n = decoder ? tr->tgt_len[b] : tr->src_len[b];
    const int *ids = decoder ? tr->tgt_ids + (size_t)b * tr->T : tr->src_ids + (size_t)b * tr->S;
    if (!p->query || !p->query[0])
        return n > 0 ? 0 : -1;
    return find_token(p->query, ids, n, voc);
}

int lesson_predict_answer(const TfTrace *tr, int kind, int stage, int layer, int head, int b, int row)
{
    TfErr err;
    TfView v;
    if (kind == LESSON_PREDICT_NEXT) {
        if (tf_view(tr, ST_OUT_PROBS, 0, -1, b, &v, &err) || row < 0 || row >= v.rows)
            return -1;
    } else {
        if (!lesson_predict_stage_ok(stage, NULL))
            return -1;
        /* the weights of the same attention: the argmax over the keys the
         * mask lets through, also when the scores are shown */
        StageId w = stage_attn_part(stage_attn_block((StageId)stage), AP_WEIGHTS);
        if (tf_view(tr, w, layer, head < 0 ? 0 : head, b, &v, &err) || row < 0 || row >= v.rows)
            return -1;
    }
    int best = -1;
    float bv = 0;
    for (int c = 0; c < v.cols; c++) {
        float x = tf_view_at(&v, row, c);
        if (best < 0 || x > bv) {
            best = c;
            bv = x;
        }
    }
    return best;
}

/* ---- @predict next: the tokens offered ---- */

unsigned lesson_predict_seed(const char *id, int step)
{
    char key[96]; /* FNV-1a of "id#step" */
    snprintf(key, sizeof key, "%s#%d", id ? id : "", step);
    return tf_fnv_fold(tf_fnv_bytes(TF_FNV_SEED, key, strlen(key)));
}

/* A key for the offered order: a hash of the token and the seed, so the
 * order is fixed for a step and says nothing about the probabilities. */
static unsigned order_key(unsigned seed, int id)
{
    unsigned x = seed ^ ((unsigned)id * 0x9e3779b9u);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

int lesson_predict_candidates(const TfTrace *tr, int b, int row, unsigned seed, int *ids, int cap)
{
    TfErr err;
    TfView v;
    if (cap <= 0 || tf_view(tr, ST_OUT_PROBS, 0, -1, b, &v, &err) || row < 0 || row >= v.rows)
        return 0;
    int k = 0, pad = cfg_pad_id(&tr->cfg), start = cfg_start_id(&tr->cfg); /* never predicted */
    for (int c = 0; c < v.cols; c++) { /* the cap most probable, by insertion */
        if (c == pad || c == start)
            continue;
        float x = tf_view_at(&v, row, c);
        int at;
        if (k < cap)
            at = k++;
        else if (x > tf_view_at(&v, row, ids[k - 1]))
            at = k - 1;
        else
            continue;
        while (at > 0 && x > tf_view_at(&v, row, ids[at - 1])) {
            ids[at] = ids[at - 1];
            at--;
        }
        ids[at] = c;
    }
    for (int i = 1; i < k; i++) /* then in the step's shuffled order */
        for (int j = i; j > 0 && order_key(seed, ids[j]) < order_key(seed, ids[j - 1]); j--) {
            int t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    return k;
}

/* ---- @predict number ---- */

int lesson_predict_cell(const LessonPredict *p, const TfTrace *tr, const Vocab *src, const Vocab *tgt, int stage,
                        int b, int rows, int cols, int *row, int *col)
{
    if (stage < 0 || stage >= ST_COUNT || b < 0 || b >= tr->B)
        return -1;
    int dec = (stage_info((StageId)stage)->flags & SF_DECODER) != 0;
    const int *sids = tr->src_ids + (size_t)b * tr->S, *tids = tr->tgt_ids + (size_t)b * tr->T;
    *row = dec ? find_token(p->query, tids, tr->tgt_len[b], tgt) : find_token(p->query, sids, tr->src_len[b], src);
    *col = -1;
    if (*row < 0 || *row >= rows)
        return -1;
    if (p->what != LESSON_NUM_CELL)
        return 0;
    /* key columns are tokens of the attention's keys; other columns by #N */
    int cross = stage >= ST_DEC_CROSS_Q && dec;
    StageKind kind = stage_info((StageId)stage)->kind;
    if (p->col && p->col[0] == '#')
        *col = find_token(p->col, sids, cols, src);
    else if (kind == SK_SCORES || kind == SK_WEIGHTS || kind == SK_MASK)
        *col = dec && !cross ? find_token(p->col, tids, tr->tgt_len[b], tgt)
                             : find_token(p->col, sids, tr->src_len[b], src);
    return *col >= 0 && *col < cols ? 0 : -1;
}

int lesson_predict_number(const LessonPredict *p, const TfTrace *tr, const Vocab *src, const Vocab *tgt,
                          int stage, int layer, int head, int b, double *out)
{
    TfErr err;
    TfView v;
    int row, col;
    if (stage < 0 || stage >= ST_COUNT || b < 0 || b >= tr->B ||
        tf_view(tr, (StageId)stage, layer, head < 0 ? 0 : head, b, &v, &err) ||
        lesson_predict_cell(p, tr, src, tgt, stage, b, v.rows, v.cols, &row, &col))
        return -1;
    if (p->what == LESSON_NUM_CELL) {
        *out = tf_view_at(&v, row, col);
        return 0;
    }
    double sum = 0, sq = 0, mx = 0;
    int zeros = 0;
    for (int c = 0; c < v.cols; c++) {
        double x = tf_view_at(&v, row, c);
        sum += x;
        zeros += x == 0;
        if (c == 0 || x > mx)
            mx = x;
    }
    double mean = sum / v.cols;
    for (int c = 0; c < v.cols; c++) {
        double d = tf_view_at(&v, row, c) - mean;
        sq += d * d;
    }
    *out = p->what == LESSON_NUM_MEAN ? mean : p->what == LESSON_NUM_STD ? sqrt(sq / v.cols)
           : p->what == LESSON_NUM_ZEROS ? zeros : mx;
    return 0;
}

int lesson_choice_number(const char *text, double *out, int *decimals)
{
    const char *s = text;
    int neg = 0;
    for (;;) { /* "≈ ", "about"-free prefixes: spaces, ≈, ~ */
        if (*s == ' ' || *s == '~')
            s++;
        else if (strncmp(s, "≈", strlen("≈")) == 0)
            s += strlen("≈");
        else
            break;
    }
    if (*s == '-') {
        neg = 1;
        s++;
    } else if (strncmp(s, "−", strlen("−")) == 0) {
        neg = 1;
        s += strlen("−");
    }
    if (*s < '0' || *s > '9')
        return -1;
    double x = 0;
    while (*s >= '0' && *s <= '9')
        x = x * 10 + (*s++ - '0');
    int d = 0;
    if (*s == '.' && s[1] >= '0' && s[1] <= '9') {
        double f = 0.1;
        for (s++; *s >= '0' && *s <= '9'; s++, d++, f /= 10)
            x += (*s - '0') * f;
    }
    *out = neg ? -x : x;
    if (decimals)
        *decimals = d;
    return 0;
}

int lesson_number_matches(double value, double written, int decimals)
{
    double half = 0.5;
    for (int i = 0; i < decimals; i++)
        half /= 10;
    return fabs(value - written) <= half * (1 + 1e-9);
}

const char *lesson_choice_label(const char *text)
{
    const char *bar = strchr(text, '|');
    if (!bar)
        return text;
    bar++;
    while (*bar == ' ')
        bar++;
    return *bar ? bar : text;
}

/* ---- quizzes shuffled per learner ---- */

static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

void lesson_quiz_order(const Lesson *l, int step, unsigned seed, int *order)
{
    const LessonStep *s = &l->steps[step];
    int n = s->quiz.n_choices;
    for (int k = 0; k < n; k++)
        order[k] = k;
    if (n < 2 || s->quiz.answer < 0)
        return;
    /* the how-manieth quiz of the lesson this is: answers go round in turn */
    int nth = 0;
    for (int i = 0; i < step; i++)
        nth += l->steps[i].quiz.n_choices > 1;
    int at = (int)((mix(seed) + (unsigned)nth) % (unsigned)n);
    int wrong[LESSON_MAX_CHOICES], nw = 0;
    for (int k = 0; k < n; k++)
        if (k != s->quiz.answer)
            wrong[nw++] = k;
    unsigned r = mix(seed ^ (0x9e3779b9u * (unsigned)(step + 1)));
    for (int k = nw - 1; k > 0; k--) { /* Fisher-Yates on the wrong ones */
        r = mix(r + (unsigned)k);
        int j = (int)(r % (unsigned)(k + 1)), t = wrong[k];
        wrong[k] = wrong[j];
        wrong[j] = t;
    }
    for (int k = 0, w = 0; k < n; k++)
        order[k] = k == at ? s->quiz.answer : wrong[w++];
}

/* ---- brace markup as drawn ---- */

/* The Unicode sub- or superscript of one character, or NULL. */
static const char *script_of(const char *s, size_t *len, int sup)
{
    static const char *DIG_SUB[10] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    static const char *DIG_SUP[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    static const char *SUB_AZ = "aehijklmnoprstuvx";
    static const char *SUB_U[] = {"ₐ", "ₑ", "ₕ", "ᵢ", "ⱼ", "ₖ", "ₗ", "ₘ", "ₙ", "ₒ", "ₚ", "ᵣ", "ₛ", "ₜ", "ᵤ", "ᵥ", "ₓ"};
    static const char *SUP_AZ = "iknT";
    static const char *SUP_U[] = {"ⁱ", "ᵏ", "ⁿ", "ᵀ"};
    *len = 1;
    if (*s >= '0' && *s <= '9')
        return sup ? DIG_SUP[*s - '0'] : DIG_SUB[*s - '0'];
    if (*s == '+')
        return sup ? "⁺" : "₊";
    if (*s == '-')
        return sup ? "⁻" : "₋";
    if (*s == '=')
        return sup ? "⁼" : "₌";
    if (*s == '(')
        return sup ? "⁽" : "₍";
    if (*s == ')')
        return sup ? "⁾" : "₎";
    if (strncmp(s, "−", strlen("−")) == 0) {
        *len = strlen("−");
        return sup ? "⁻" : "₋";
    }
    const char *set = sup ? SUP_AZ : SUB_AZ;
    const char *hit = *s ? strchr(set, *s) : NULL;
    if (hit)
        return sup ? SUP_U[hit - set] : SUB_U[hit - set];
    return NULL;
}

size_t lesson_text_plain(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    if (cap == 0)
        return 0;
#define PUT(str, len)                                                                                              \
    do {                                                                                                           \
        size_t l_ = (len);                                                                                         \
        if (k + l_ >= cap)                                                                                         \
            goto done;                                                                                             \
        memcpy(out + k, (str), l_);                                                                                \
        k += l_;                                                                                                   \
    } while (0)
    for (size_t i = 0; i < n;) {
        const char *close;
        if ((s[i] == '_' || s[i] == '^') && i + 1 < n && s[i + 1] == '{' &&
            (close = memchr(s + i + 2, '}', n - i - 2)) != NULL) {
            int sup = s[i] == '^';
            const char *a = s + i + 2;
            size_t an = (size_t)(close - a), ok = an > 0;
            for (size_t j = 0; ok && j < an;) {
                size_t cl;
                if (!script_of(a + j, &cl, sup))
                    ok = 0;
                j += cl;
            }
            if (ok) {
                for (size_t j = 0; j < an;) {
                    size_t cl;
                    const char *u = script_of(a + j, &cl, sup);
                    PUT(u, strlen(u));
                    j += cl;
                }
            } else { /* no script for some character: x_(...) */
                PUT(s + i, 1);
                PUT("(", 1);
                PUT(a, an);
                PUT(")", 1);
            }
            i = (size_t)(close - s) + 1;
            continue;
        }
        PUT(s + i, 1);
        i++;
    }
done:
    out[k] = 0;
    return k;
#undef PUT
}
