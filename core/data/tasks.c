/* tasks.c - the built-in tasks and the TSV loader (see tasks.h).
 *
 * ======================================================================
 *  The en2zh language: a small English -> Chinese "translation" task
 * ======================================================================
 * Every sentence is generated from a clause (subject, verb, object, optional
 * adjective, place and time) and rendered twice, once in English and once in
 * Chinese, by the rules below. Each English sentence therefore has exactly
 * one translation. English is lowercase with "?" as its own token; Chinese is
 * space-separated words with a full-width "？" ending questions.
 *
 * Lexicon
 *   subjects  i 我 | you 你 | he 他 | she 她 | we 我们 | they 他们 |
 *             the teacher 老师 | the children 孩子们
 *             (he, she, the teacher take the 3rd-person -s and "does")
 *   verbs     love(s) 爱 | like(s) 喜欢 | read(s) 读 | eat(s) 吃 |
 *             drink(s) 喝 | see(s) 看 | watch(es) 看 | listen(s) to 听
 *   objects   china 中国 | books 书 | newspapers 报纸 | apples 苹果 |
 *             rice 米饭 | noodles 面条 | tea 茶 | water 水 | coffee 咖啡 |
 *             milk 牛奶 | movies 电影 | tv 电视 | music 音乐 | cats 猫 |
 *             dogs 狗 | me 我 | you 你 | him 他 | her 她 | us 我们 | them 他们
 *   adjectives new 新 | red 红 | hot 热 | cold 冷 | good 好
 *   times     today 今天 | tomorrow 明天 | tonight 今晚 | every day 每天 |
 *             in the morning 早上
 *   places    at home 在 家 | at school 在 学校 | in the park 在 公园 |
 *             in the library 在 图书馆
 *   function  do/does not 不 | very much 很 | and 和 | what 什么 |
 *             where 在 哪里 | (yes/no question) 吗 ？
 *
 * Which verb takes which object (so the English makes sense):
 *   read: books, newspapers          eat: apples, rice, noodles
 *   drink: tea, water, coffee, milk  watch: movies, tv   listen to: music
 *   see: movies, cats, dogs, people
 *   love: china, books, apples, rice, noodles, tea, coffee, movies, music,
 *         cats, dogs, people
 *   like: everything love takes, and newspapers, water, milk, tv
 * Adjectives: new books/movies, red apples, hot noodles/tea/water/coffee/milk,
 * cold water/milk, good books/tea/coffee/movies/music. Nobody loves, likes or
 * sees themselves ("i love me", "we like us", "he sees him" never occur).
 * love and like are states: they take no time or place and are not asked
 * about with "where" ("i like tea today" never occurs); the other verbs are
 * actions and take both. "and" joins two different objects of the same sort
 * (reading, food, drink, media, animals): "rice and noodles", never
 * "tea and china".
 *
 * Constructions (S subject, V verb, O [adjective] object, P place, T time;
 * [..] optional; English on the left, Chinese on the right):
 *   statement  S V O [P] [T]                 -> S [T] [P] V O
 *              i read books at home today    -> 我 今天 在 家 读 书
 *   negation   S do/does not V O [P] [T]     -> S [T] 不 [P] V O
 *              he does not eat apples        -> 他 不 吃 苹果
 *   yes/no     do/does S V O [P] [T] ?       -> S [T] [P] V O 吗 ？
 *              does she read books today ?   -> 她 今天 读 书 吗 ？
 *   what       what do/does S V [P] [T] ?    -> S [T] [P] V 什么 ？
 *              what do you eat tonight ?     -> 你 今晚 吃 什么 ？
 *   where      where do/does S V O [T] ?     -> S [T] 在 哪里 V O ？
 *              where does he read newspapers ? -> 他 在 哪里 读 报纸 ？
 *   very much  S V O very much  (V = love/like) -> S 很 V O
 *              they like red apples very much -> 他们 很 喜欢 红 苹果
 *   very much? do/does S V O very much ?     -> S 很 V O 吗 ？
 *   and        S V O1 and O2 [T]             -> S [T] V O1 和 O2
 *              she eats rice and noodles     -> 她 吃 米饭 和 面条
 * What the model has to learn: time and place phrases move from the end of
 * the English sentence to before the Chinese verb (time first, then place);
 * "very much" moves before the verb; question words stay in place in Chinese
 * ("what" becomes the object 什么); several English words become one Chinese
 * word (do not / does not -> 不, every day -> 每天, in the morning -> 早上,
 * likes / like -> 喜欢, listen to -> 听, the teacher -> 老师) and one English
 * word becomes two (where -> 在 哪里); "do"/"does" of a question has no
 * Chinese word, 吗 ？ appears at the end instead. Questions never have "i" as
 * subject. English sentences have at most EN_MAX_TOKENS (12) tokens.
 *
 * The data set: 9,500 distinct sentences drawn at random from the seed, per
 * construction (KIND_QUOTA): statement 3000, negation 1500, yes/no 1800,
 * what 700, where 900, very much 300, very much? 300, and 1000. The showcase
 * sentences (SHOWCASE) are always among them and always in the training
 * split; the held-out split (500 by default) takes a proportional share of
 * every construction. Sentences are at most 12 tokens in English and 9 in
 * Chinese; the vocabularies (fixed, whatever the seed) have 76 English and
 * 56 Chinese tokens, the four specials included.
 *
 * ======================================================================
 *  copy / reverse / sort: strings of a-z, lengths 1..max_len, character level
 * ======================================================================
 * About 20,000 training and 500 held-out strings (TASK_CHAR_TRAIN,
 * TASK_DEFAULT_HELDOUT). Both quotas are spread evenly over the lengths; a
 * length with few distinct strings (26 of length 1, 676 of length 2) gives up
 * to an eighth of them to held-out and the rest to training, and the unused
 * quota passes on to longer lengths. */
#include "tasks.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* ---------------------------------------------------------------------- */
/* The token pool and pairs                                                */
/* ---------------------------------------------------------------------- */

void dataset_free(Dataset *d)
{
    if (!d)
        return;
    vocab_free(&d->src);
    vocab_free(&d->tgt);
    free(d->ids);
    free(d->pairs);
    memset(d, 0, sizeof *d);
}

static int ds_reserve(Dataset *d, size_t more_ids, TfErr *err)
{
    if (d->n_ids + more_ids > (size_t)INT_MAX)
        return tf_fail(err, "more than %d tokens in the data set", INT_MAX);
    if (d->n_ids + more_ids > d->cap_ids) {
        size_t cap = d->cap_ids ? d->cap_ids : 4096;
        while (cap < d->n_ids + more_ids)
            cap *= 2;
        int32_t *ids = realloc(d->ids, cap * sizeof *ids);
        if (!ids)
            return tf_fail(err, "out of memory for %zu tokens", cap);
        d->ids = ids;
        d->cap_ids = cap;
    }
    if (d->n_pairs == d->cap_pairs) {
        if (d->n_pairs == INT_MAX / 2)
            return tf_fail(err, "too many sentence pairs");
        int cap = d->cap_pairs ? d->cap_pairs * 2 : 1024;
        Pair *p = realloc(d->pairs, (size_t)cap * sizeof *p);
        if (!p)
            return tf_fail(err, "out of memory for %d sentence pairs", cap);
        d->pairs = p;
        d->cap_pairs = cap;
    }
    return 0;
}

/* Append a pair (tokens only, no <bos>/<eos>); returns its index or -1. */
static int ds_push(Dataset *d, const int *src, int ns, const int *tgt, int nt,
                   TfErr *err)
{
    if (ds_reserve(d, (size_t)ns + (size_t)nt, err))
        return -1;
    Pair *p = &d->pairs[d->n_pairs];
    p->src_off = (int)d->n_ids;
    p->src_len = ns;
    for (int i = 0; i < ns; i++)
        d->ids[d->n_ids++] = src[i];
    p->tgt_off = (int)d->n_ids;
    p->tgt_len = nt;
    for (int i = 0; i < nt; i++)
        d->ids[d->n_ids++] = tgt[i];
    if (ns > d->max_src)
        d->max_src = ns;
    if (nt > d->max_tgt)
        d->max_tgt = nt;
    return d->n_pairs++;
}

/* Put the pairs marked in held[] after the others (each part keeps its
 * order, or is shuffled when r is not NULL) and set n_train. */
static int ds_split(Dataset *d, const unsigned char *held, Rng *r, TfErr *err)
{
    Pair *out = malloc((size_t)(d->n_pairs ? d->n_pairs : 1) * sizeof *out);
    if (!out)
        return tf_fail(err, "out of memory splitting the data set");
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < d->n_pairs; i++)
            if (held[i] == pass)
                out[k++] = d->pairs[i];
    int n_train = 0;
    for (int i = 0; i < d->n_pairs; i++)
        n_train += !held[i];
    if (r) {
        /* Fisher-Yates within [0, n_train) and within [n_train, n_pairs) */
        for (int i = n_train - 1; i > 0; i--) {
            int j = (int)rng_below(r, (uint32_t)i + 1);
            Pair t = out[i]; out[i] = out[j]; out[j] = t;
        }
        for (int i = d->n_pairs - 1; i > n_train; i--) {
            int j = n_train + (int)rng_below(r, (uint32_t)(i - n_train) + 1);
            Pair t = out[i]; out[i] = out[j]; out[j] = t;
        }
    }
    free(d->pairs);
    d->pairs = out;
    d->cap_pairs = d->n_pairs ? d->n_pairs : 1;
    d->n_train = n_train;
    return 0;
}

/* Choose k of the indices in idx[0..n) at random (partial Fisher-Yates) and
 * mark them in held[]. */
static void pick_heldout(int *idx, int n, int k, Rng *r, unsigned char *held)
{
    for (int i = 0; i < k && i < n; i++) {
        int j = i + (int)rng_below(r, (uint32_t)(n - i));
        int t = idx[i]; idx[i] = idx[j]; idx[j] = t;
        held[idx[i]] = 1;
    }
}

/* ---------------------------------------------------------------------- */
/* A set of source sequences, to keep every source sentence distinct       */
/* ---------------------------------------------------------------------- */

typedef struct SeqSet {
    int *slot; /* (nslot) pair index + 1, 0 = empty; open addressing */
    int nslot, n;
} SeqSet;

/* FNV-1a style hash of a token sequence, one id at a time. */
static uint32_t hash_step(uint32_t h, uint32_t id)
{
    h ^= id;
    h *= 16777619u;
    return h ^ (h >> 15);
}

static uint32_t seq_hash(const int *ids, int n)
{
    uint32_t h = 2166136261u ^ (uint32_t)n;
    for (int i = 0; i < n; i++)
        h = hash_step(h, (uint32_t)ids[i]);
    return h;
}

static int seq_eq(const int *a, const int32_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* Index of the pair whose source is ids[0..n), or -1. */
static int seqset_find(const SeqSet *s, const Dataset *d, const int *ids, int n)
{
    if (!s->nslot)
        return -1;
    uint32_t mask = (uint32_t)s->nslot - 1;
    for (uint32_t h = seq_hash(ids, n) & mask; s->slot[h]; h = (h + 1) & mask) {
        const Pair *p = &d->pairs[s->slot[h] - 1];
        if (p->src_len == n && seq_eq(ids, d->ids + p->src_off, n))
            return s->slot[h] - 1;
    }
    return -1;
}

static void seqset_put(SeqSet *s, const Dataset *d, int pair)
{
    const Pair *p = &d->pairs[pair];
    uint32_t h = 2166136261u ^ (uint32_t)p->src_len; /* as seq_hash */
    for (int i = 0; i < p->src_len; i++)
        h = hash_step(h, (uint32_t)d->ids[p->src_off + i]);
    uint32_t mask = (uint32_t)s->nslot - 1;
    for (h &= mask; s->slot[h]; h = (h + 1) & mask)
        ;
    s->slot[h] = pair + 1;
}

/* Add pair (already pushed) to the set, growing it to stay half empty. */
static int seqset_add(SeqSet *s, const Dataset *d, int pair, TfErr *err)
{
    if ((s->n + 1) * 2 > s->nslot) {
        int nslot = s->nslot ? s->nslot * 2 : 1024;
        int *slot = calloc((size_t)nslot, sizeof *slot);
        if (!slot)
            return tf_fail(err, "out of memory for the sentence set");
        SeqSet grown = {slot, nslot, s->n};
        for (int i = 0; i < s->nslot; i++)
            if (s->slot[i])
                seqset_put(&grown, d, s->slot[i] - 1);
        free(s->slot);
        *s = grown;
    }
    seqset_put(s, d, pair);
    s->n++;
    return 0;
}

static void seqset_free(SeqSet *s)
{
    free(s->slot);
    memset(s, 0, sizeof *s);
}

/* Add every token of text (split in the vocabulary's mode) to v. */
static int vocab_add_words(Vocab *v, const char *text, TfErr *err)
{
    TokSpan sp[16];
    int n = tok_split(v->mode, text, strlen(text), sp, 16, err);
    if (n < 0 || n > 16)
        return tf_fail(err, "bad lexicon entry \"%s\"", text);
    for (int i = 0; i < n; i++)
        if (vocab_add(v, text + sp[i].off, sp[i].len, err) < 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* copy / reverse / sort                                                   */
/* ---------------------------------------------------------------------- */

enum { CHAR_COPY, CHAR_REVERSE, CHAR_SORT };
#define ALPHABET 26

/* The target of a character task; ids are letter ids 4..29. */
static void char_target(int kind, const int *src, int n, int *tgt)
{
    if (kind == CHAR_COPY) {
        memcpy(tgt, src, (size_t)n * sizeof *tgt);
    } else if (kind == CHAR_REVERSE) {
        for (int i = 0; i < n; i++)
            tgt[i] = src[n - 1 - i];
    } else { /* counting sort: letters in alphabetical order */
        int count[TOK_NSPECIAL + ALPHABET] = {0};
        for (int i = 0; i < n; i++)
            count[src[i]]++;
        int k = 0;
        for (int c = 0; c < TOK_NSPECIAL + ALPHABET; c++)
            for (int j = 0; j < count[c]; j++)
                tgt[k++] = c;
    }
}

/* Number of distinct strings of length len, saturating at 1e9. */
static long long n_strings(int len)
{
    long long c = 1;
    for (int i = 0; i < len && c < 1000000000LL; i++)
        c *= ALPHABET;
    return c < 1000000000LL ? c : 1000000000LL;
}

typedef struct CharGen {
    Dataset *d;
    SeqSet seen;
    unsigned char *held; /* (cap) 1 = held-out pair */
    int cap_held, kind;
    Rng rng;
} CharGen;

/* Add the string src (letter ids) and its target unless already present.
 * Returns 1 if added, 0 if a duplicate, -1 on error. */
static int char_add(CharGen *g, const int *src, int n, int held, TfErr *err)
{
    if (seqset_find(&g->seen, g->d, src, n) >= 0)
        return 0;
    int tgt[TASK_MAX_MAX_LEN];
    char_target(g->kind, src, n, tgt);
    int at = ds_push(g->d, src, n, tgt, n, err);
    if (at < 0 || seqset_add(&g->seen, g->d, at, err))
        return -1;
    if (at >= g->cap_held) {
        int cap = g->cap_held ? g->cap_held * 2 : 4096;
        unsigned char *h = realloc(g->held, (size_t)cap);
        if (!h)
            return tf_fail(err, "out of memory");
        g->held = h;
        g->cap_held = cap;
    }
    g->held[at] = (unsigned char)held;
    return 1;
}

/* All strings of length len in random order; the first n_held go to
 * held-out, the next n_train to training. For short lengths only. */
static int char_enumerate(CharGen *g, int len, int n_held, int n_train,
                          TfErr *err)
{
    int count = (int)n_strings(len);
    int *order = malloc((size_t)count * sizeof *order);
    if (!order)
        return tf_fail(err, "out of memory");
    for (int i = 0; i < count; i++)
        order[i] = i;
    for (int i = count - 1; i > 0; i--) {
        int j = (int)rng_below(&g->rng, (uint32_t)i + 1);
        int t = order[i]; order[i] = order[j]; order[j] = t;
    }
    int rc = 0;
    for (int i = 0; i < n_held + n_train && rc >= 0; i++) {
        int s[TASK_MAX_MAX_LEN], x = order[i];
        for (int k = len - 1; k >= 0; k--, x /= ALPHABET)
            s[k] = TOK_NSPECIAL + x % ALPHABET; /* base-26 digits */
        rc = char_add(g, s, len, i < n_held, err);
    }
    free(order);
    return rc < 0 ? -1 : 0;
}

/* Random distinct strings of length len, for lengths with many strings. */
static int char_sample(CharGen *g, int len, int n_held, int n_train,
                       TfErr *err)
{
    for (int i = 0; i < n_held + n_train;) {
        int s[TASK_MAX_MAX_LEN];
        for (int k = 0; k < len; k++)
            s[k] = TOK_NSPECIAL + (int)rng_below(&g->rng, ALPHABET);
        int rc = char_add(g, s, len, i < n_held, err);
        if (rc < 0)
            return -1;
        i += rc;
    }
    return 0;
}

static int char_vocab(Vocab *v, TfErr *err)
{
    if (vocab_init(v, TOK_CHAR, err))
        return -1;
    for (char c = 'a'; c <= 'z'; c++)
        if (vocab_add(v, &c, 1, err) < 0)
            return -1;
    return 0;
}

/* Quota for one length: the remaining budget spread over the lengths left
 * (rounded up), at most `avail`. */
static long long share(long long remaining, int lengths_left, long long avail)
{
    long long q = (remaining + lengths_left - 1) / lengths_left;
    return q < avail ? q : avail;
}

static int char_lengths(CharGen *g, int max_len, int n_heldout, TfErr *err)
{
    long long rem_h = n_heldout, rem_t = TASK_CHAR_TRAIN;
    for (int len = 1; len <= max_len; len++) {
        long long count = n_strings(len);
        long long cap_h = count >= 2 ? (count / 8 > 0 ? count / 8 : 1) : 0;
        long long h = share(rem_h, max_len - len + 1, cap_h);
        long long t = share(rem_t, max_len - len + 1, count - h);
        int rc = count <= 2 * (h + t)
                     ? char_enumerate(g, len, (int)h, (int)t, err)
                     : char_sample(g, len, (int)h, (int)t, err);
        if (rc)
            return -1;
        rem_h -= h;
        rem_t -= t;
    }
    return 0;
}

static int task_char(Dataset *d, int kind, const TaskOpts *o, TfErr *err)
{
    int max_len = o->max_len ? o->max_len : TASK_DEFAULT_MAX_LEN;
    if (max_len < 1 || max_len > TASK_MAX_MAX_LEN)
        return tf_fail(err, "max_len %d out of range 1..%d", max_len,
                       TASK_MAX_MAX_LEN);
    if (char_vocab(&d->src, err) || char_vocab(&d->tgt, err))
        return -1;
    CharGen g = {.d = d, .kind = kind};
    rng_seed(&g.rng, o->seed);
    int n_held = o->n_heldout ? o->n_heldout : TASK_DEFAULT_HELDOUT;
    int rc = char_lengths(&g, max_len, n_held, err);
    if (!rc)
        rc = ds_split(d, g.held, &g.rng, err);
    seqset_free(&g.seen);
    free(g.held);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* en2zh: the lexicon                                                      */
/* ---------------------------------------------------------------------- */

#define EN_MAX_TOKENS 12
#define EN_QUESTION_MARK "?"
#define ZH_QUESTION_MARK "\xEF\xBC\x9F" /* ？ U+FF1F */

/* Subjects; `who` identifies the person so that "i love me" is excluded
 * (i/we/me/us are all first person, so they share who = 1). */
enum { S_I, S_YOU, S_HE, S_SHE, S_WE, S_THEY, S_TEACHER, S_CHILDREN, N_SUBJ };
static const struct { const char *en, *zh; int third, who; } SUBJ[N_SUBJ] = {
    {"i", "我", 0, 1},           {"you", "你", 0, 2},
    {"he", "他", 1, 3},          {"she", "她", 1, 4},
    {"we", "我们", 0, 1},        {"they", "他们", 0, 6},
    {"the teacher", "老师", 1, 7}, {"the children", "孩子们", 0, 8},
};

enum { V_LOVE, V_LIKE, V_READ, V_EAT, V_DRINK, V_SEE, V_WATCH, V_LISTEN,
       N_VERB };
static const struct { const char *en, *en3, *zh; } VERB[N_VERB] = {
    {"love", "loves", "爱"},     {"like", "likes", "喜欢"},
    {"read", "reads", "读"},     {"eat", "eats", "吃"},
    {"drink", "drinks", "喝"},   {"see", "sees", "看"},
    {"watch", "watches", "看"},  {"listen to", "listens to", "听"},
};

/* Index 0 of adjectives, times and places means "none". */
enum { A_NONE, A_NEW, A_RED, A_HOT, A_COLD, A_GOOD, N_ADJ };
static const struct { const char *en, *zh; } ADJ[N_ADJ] = {
    {NULL, NULL}, {"new", "新"}, {"red", "红"},
    {"hot", "热"}, {"cold", "冷"}, {"good", "好"},
};

enum { T_NONE, T_TODAY, T_TOMORROW, T_TONIGHT, T_EVERYDAY, T_MORNING, N_TIME };
static const struct { const char *en, *zh; } TIME[N_TIME] = {
    {NULL, NULL},          {"today", "今天"},      {"tomorrow", "明天"},
    {"tonight", "今晚"},   {"every day", "每天"},  {"in the morning", "早上"},
};

enum { P_NONE, P_HOME, P_SCHOOL, P_PARK, P_LIBRARY, N_PLACE };
static const struct { const char *en, *zh; } PLACE[N_PLACE] = {
    {NULL, NULL},              {"at home", "家"},
    {"at school", "学校"},     {"in the park", "公园"},
    {"in the library", "图书馆"},
};

#define VB(v) (1u << (v))
#define AB(a) (1u << (a))
#define LOVE_LIKE (VB(V_LOVE) | VB(V_LIKE))
#define PEOPLE_VERBS (LOVE_LIKE | VB(V_SEE))

/* Objects: which verbs take them, which adjectives fit, their sort, and for
 * pronouns the person (who > 0; things have who = 0). */
enum { N_CHINA, N_BOOKS, N_PAPERS, N_APPLES, N_RICE, N_NOODLES, N_TEA,
       N_WATER, N_COFFEE, N_MILK, N_MOVIES, N_TV, N_MUSIC, N_CATS, N_DOGS,
       N_ME, N_YOU, N_HIM, N_HER, N_US, N_THEM, N_NOUN };
enum { K_COUNTRY, K_READING, K_FOOD, K_DRINK, K_MEDIA, K_ANIMAL, K_PERSON };
static const struct {
    const char *en, *zh;
    unsigned verbs, adjs;
    int kind; /* what sort of thing: "and" joins two of the same sort */
    int who;
} NOUN[N_NOUN] = {
    {"china", "中国", LOVE_LIKE, 0, K_COUNTRY, 0},
    {"books", "书", LOVE_LIKE | VB(V_READ), AB(A_NEW) | AB(A_GOOD), K_READING, 0},
    {"newspapers", "报纸", VB(V_LIKE) | VB(V_READ), 0, K_READING, 0},
    {"apples", "苹果", LOVE_LIKE | VB(V_EAT), AB(A_RED), K_FOOD, 0},
    {"rice", "米饭", LOVE_LIKE | VB(V_EAT), 0, K_FOOD, 0},
    {"noodles", "面条", LOVE_LIKE | VB(V_EAT), AB(A_HOT), K_FOOD, 0},
    {"tea", "茶", LOVE_LIKE | VB(V_DRINK), AB(A_HOT) | AB(A_GOOD), K_DRINK, 0},
    {"water", "水", VB(V_LIKE) | VB(V_DRINK), AB(A_HOT) | AB(A_COLD), K_DRINK, 0},
    {"coffee", "咖啡", LOVE_LIKE | VB(V_DRINK), AB(A_HOT) | AB(A_GOOD), K_DRINK, 0},
    {"milk", "牛奶", VB(V_LIKE) | VB(V_DRINK), AB(A_HOT) | AB(A_COLD), K_DRINK, 0},
    {"movies", "电影", LOVE_LIKE | VB(V_SEE) | VB(V_WATCH), AB(A_NEW) | AB(A_GOOD),
     K_MEDIA, 0},
    {"tv", "电视", VB(V_LIKE) | VB(V_WATCH), 0, K_MEDIA, 0},
    {"music", "音乐", LOVE_LIKE | VB(V_LISTEN), AB(A_GOOD), K_MEDIA, 0},
    {"cats", "猫", PEOPLE_VERBS, 0, K_ANIMAL, 0},
    {"dogs", "狗", PEOPLE_VERBS, 0, K_ANIMAL, 0},
    {"me", "我", PEOPLE_VERBS, 0, K_PERSON, 1},
    {"you", "你", PEOPLE_VERBS, 0, K_PERSON, 2},
    {"him", "他", PEOPLE_VERBS, 0, K_PERSON, 3},
    {"her", "她", PEOPLE_VERBS, 0, K_PERSON, 4},
    {"us", "我们", PEOPLE_VERBS, 0, K_PERSON, 1},
    {"them", "他们", PEOPLE_VERBS, 0, K_PERSON, 6},
};

/* Function words, in vocabulary order. */
static const char *const EN_FUNC[] = {"do", "does", "not", "very", "much",
                                      "and", "what", "where", EN_QUESTION_MARK};
static const char *const ZH_FUNC[] = {"不", "很", "和", "什么", "在", "哪里",
                                      "吗", ZH_QUESTION_MARK};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Vocabularies in lexicon order, so they do not depend on the seed. */
static int en2zh_vocab(Dataset *d, TfErr *err)
{
    if (vocab_init(&d->src, TOK_WORD, err) || vocab_init(&d->tgt, TOK_WORD, err))
        return -1;
    d->src.lower = 1;
    Vocab *e = &d->src, *z = &d->tgt;
    int rc = 0;
    for (int i = 0; i < N_SUBJ; i++)
        rc |= vocab_add_words(e, SUBJ[i].en, err) | vocab_add_words(z, SUBJ[i].zh, err);
    for (int i = 0; i < N_VERB; i++)
        rc |= vocab_add_words(e, VERB[i].en, err) | vocab_add_words(e, VERB[i].en3, err) |
              vocab_add_words(z, VERB[i].zh, err);
    for (int i = 0; i < N_NOUN; i++)
        rc |= vocab_add_words(e, NOUN[i].en, err) | vocab_add_words(z, NOUN[i].zh, err);
    for (int i = 1; i < N_ADJ; i++)
        rc |= vocab_add_words(e, ADJ[i].en, err) | vocab_add_words(z, ADJ[i].zh, err);
    for (int i = 1; i < N_TIME; i++)
        rc |= vocab_add_words(e, TIME[i].en, err) | vocab_add_words(z, TIME[i].zh, err);
    for (int i = 1; i < N_PLACE; i++)
        rc |= vocab_add_words(e, PLACE[i].en, err) | vocab_add_words(z, PLACE[i].zh, err);
    for (int i = 0; i < COUNT(EN_FUNC); i++)
        rc |= vocab_add_words(e, EN_FUNC[i], err);
    for (int i = 0; i < COUNT(ZH_FUNC); i++)
        rc |= vocab_add_words(z, ZH_FUNC[i], err);
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------------- */
/* en2zh: clauses and their two renderings                                 */
/* ---------------------------------------------------------------------- */

enum { C_STATE, C_NEG, C_YESNO, C_WHAT, C_WHERE, C_MUCH, C_MUCHQ, C_AND,
       N_KIND };
/* Sentences drawn per construction (fewer if the construction has fewer). */
static const int KIND_QUOTA[N_KIND] = {3000, 1500, 1800, 700, 900, 300, 300, 1000};

typedef struct Clause {
    int kind, subj, verb;
    int obj, adj;   /* object and its adjective (unused by C_WHAT) */
    int obj2, adj2; /* second object of C_AND */
    int place, time;
} Clause;

/* The demo sentences: always generated, always in the training split. */
static const Clause SHOWCASE[] = {
    {.kind = C_STATE, .subj = S_I, .verb = V_LOVE, .obj = N_CHINA},
    {.kind = C_STATE, .subj = S_I, .verb = V_READ, .obj = N_BOOKS, .time = T_TODAY},
    {.kind = C_YESNO, .subj = S_YOU, .verb = V_LIKE, .obj = N_TEA},
    {.kind = C_STATE, .subj = S_I, .verb = V_READ, .obj = N_BOOKS,
     .place = P_HOME, .time = T_TODAY},
    {.kind = C_YESNO, .subj = S_SHE, .verb = V_READ, .obj = N_BOOKS, .time = T_TODAY},
    {.kind = C_NEG, .subj = S_HE, .verb = V_EAT, .obj = N_APPLES},
    {.kind = C_NEG, .subj = S_I, .verb = V_LIKE, .obj = N_COFFEE},
    {.kind = C_STATE, .subj = S_WE, .verb = V_DRINK, .obj = N_TEA, .time = T_EVERYDAY},
    {.kind = C_STATE, .subj = S_SHE, .verb = V_LOVE, .obj = N_YOU},
    {.kind = C_STATE, .subj = S_TEACHER, .verb = V_READ, .obj = N_BOOKS,
     .adj = A_NEW, .place = P_LIBRARY},
    {.kind = C_WHAT, .subj = S_YOU, .verb = V_EAT, .time = T_TONIGHT},
    {.kind = C_WHERE, .subj = S_HE, .verb = V_READ, .obj = N_PAPERS},
    {.kind = C_MUCH, .subj = S_THEY, .verb = V_LIKE, .obj = N_APPLES, .adj = A_RED},
    {.kind = C_MUCHQ, .subj = S_YOU, .verb = V_LIKE, .obj = N_MUSIC},
    {.kind = C_AND, .subj = S_SHE, .verb = V_EAT, .obj = N_RICE, .obj2 = N_NOODLES},
};

/* Does the verb take this object (with this adjective) from this subject? */
static int object_ok(const Clause *c, int obj, int adj)
{
    if (!(NOUN[obj].verbs & VB(c->verb)))
        return 0;
    if (adj != A_NONE && !(NOUN[obj].adjs & AB(adj)))
        return 0;
    return NOUN[obj].who != SUBJ[c->subj].who; /* no "i love me" */
}

static int is_question(int kind)
{
    return kind == C_YESNO || kind == C_WHAT || kind == C_WHERE ||
           kind == C_MUCHQ;
}

static int is_stative(int verb)
{
    return verb == V_LOVE || verb == V_LIKE;
}

/* Is the clause a sentence of the language (before the length limit)? */
static int clause_ok(const Clause *c)
{
    if (is_question(c->kind) && c->subj == S_I)
        return 0;
    if ((c->kind == C_MUCH || c->kind == C_MUCHQ) &&
        c->verb != V_LOVE && c->verb != V_LIKE)
        return 0;
    /* love and like are states: no time, no place, no "where" */
    if (is_stative(c->verb) &&
        (c->place != P_NONE || c->time != T_NONE || c->kind == C_WHERE))
        return 0;
    if (c->kind == C_WHAT)
        return 1;
    if (!object_ok(c, c->obj, c->adj))
        return 0;
    if (c->kind == C_AND)
        return c->obj2 != c->obj && NOUN[c->obj].kind != K_PERSON &&
               NOUN[c->obj2].kind == NOUN[c->obj].kind &&
               object_ok(c, c->obj2, c->adj2);
    return 1;
}

/* A sentence being written, word by word. */
typedef struct Text {
    char s[256];
    int len;
} Text;

static void put(Text *t, const char *w)
{
    if (!w)
        return;
    int n = snprintf(t->s + t->len, sizeof t->s - (size_t)t->len, "%s%s",
                     t->len ? " " : "", w);
    if (n > 0 && t->len + n < (int)sizeof t->s)
        t->len += n;
}

static void put_np(Text *t, int obj, int adj, int zh)
{
    put(t, zh ? ADJ[adj].zh : ADJ[adj].en);
    put(t, zh ? NOUN[obj].zh : NOUN[obj].en);
}

static void render_en(const Clause *c, Text *t)
{
    int third = SUBJ[c->subj].third;
    const char *verb = third ? VERB[c->verb].en3 : VERB[c->verb].en;
    const char *aux = third ? "does" : "do";
    t->len = 0;
    t->s[0] = 0;
    switch (c->kind) {
    case C_WHAT:  put(t, "what"); put(t, aux); break;
    case C_WHERE: put(t, "where"); put(t, aux); break;
    case C_YESNO: case C_MUCHQ: put(t, aux); break;
    default: break;
    }
    put(t, SUBJ[c->subj].en);
    if (c->kind == C_NEG) {
        put(t, aux);
        put(t, "not");
    }
    /* after do/does the verb takes its base form */
    int base = c->kind != C_STATE && c->kind != C_MUCH && c->kind != C_AND;
    put(t, base ? VERB[c->verb].en : verb);
    if (c->kind != C_WHAT)
        put_np(t, c->obj, c->adj, 0);
    if (c->kind == C_AND) {
        put(t, "and");
        put_np(t, c->obj2, c->adj2, 0);
    }
    if (c->kind == C_MUCH || c->kind == C_MUCHQ) {
        put(t, "very");
        put(t, "much");
    }
    put(t, PLACE[c->place].en);
    put(t, TIME[c->time].en);
    if (is_question(c->kind))
        put(t, EN_QUESTION_MARK);
}

/* Chinese order: subject, time, (不), place, (很), verb, object, (吗 ？). */
static void render_zh(const Clause *c, Text *t)
{
    t->len = 0;
    t->s[0] = 0;
    put(t, SUBJ[c->subj].zh);
    put(t, TIME[c->time].zh);
    if (c->kind == C_NEG)
        put(t, "不");
    if (c->place != P_NONE) {
        put(t, "在");
        put(t, PLACE[c->place].zh);
    }
    if (c->kind == C_WHERE) {
        put(t, "在");
        put(t, "哪里");
    }
    if (c->kind == C_MUCH || c->kind == C_MUCHQ)
        put(t, "很");
    put(t, VERB[c->verb].zh);
    if (c->kind == C_WHAT)
        put(t, "什么");
    else
        put_np(t, c->obj, c->adj, 1);
    if (c->kind == C_AND) {
        put(t, "和");
        put_np(t, c->obj2, c->adj2, 1);
    }
    if (c->kind == C_YESNO || c->kind == C_MUCHQ)
        put(t, "吗");
    if (is_question(c->kind))
        put(t, ZH_QUESTION_MARK);
}

/* ---------------------------------------------------------------------- */
/* en2zh: drawing sentences                                                */
/* ---------------------------------------------------------------------- */

/* An adjective that fits obj, or none (two times in three). */
static int draw_adj(Rng *r, int obj)
{
    if (!NOUN[obj].adjs || rng_below(r, 3))
        return A_NONE;
    for (;;) {
        int a = 1 + (int)rng_below(r, N_ADJ - 1);
        if (NOUN[obj].adjs & AB(a))
            return a;
    }
}

/* A random clause of the given kind; may be invalid (clause_ok decides).
 * Place and time are each present half of the time, where allowed. */
static Clause draw_clause(Rng *r, int kind)
{
    Clause c = {.kind = kind};
    c.subj = (int)rng_below(r, N_SUBJ);
    c.verb = (kind == C_MUCH || kind == C_MUCHQ) ? (int)rng_below(r, 2)
                                                 : (int)rng_below(r, N_VERB);
    c.obj = (int)rng_below(r, N_NOUN);
    c.adj = draw_adj(r, c.obj);
    if (kind == C_AND) {
        c.obj2 = (int)rng_below(r, N_NOUN);
        c.adj2 = draw_adj(r, c.obj2);
    }
    int place_ok = !is_stative(c.verb) && kind != C_WHERE && kind != C_MUCH &&
                   kind != C_MUCHQ && kind != C_AND;
    int time_ok = !is_stative(c.verb) && kind != C_MUCH && kind != C_MUCHQ;
    if (place_ok && rng_below(r, 2))
        c.place = 1 + (int)rng_below(r, N_PLACE - 1);
    if (time_ok && rng_below(r, 2))
        c.time = 1 + (int)rng_below(r, N_TIME - 1);
    return c;
}

typedef struct En2zh {
    Dataset *d;
    SeqSet seen;
    int *kind;        /* (cap) construction of each pair */
    int cap;
    int n_showcase;   /* pairs [0, n_showcase) are the showcase */
} En2zh;

static int encode_all(const Vocab *v, const char *text, int *ids, TfErr *err)
{
    int unk = 0;
    int n = vocab_encode(v, text, ids, NULL, 32, &unk, err);
    if (n < 0 || n > 32 || unk)
        return tf_fail(err, "en2zh: \"%s\" is not in the lexicon", text);
    return n;
}

/* Render c and add it unless its English is already there (or too long).
 * Returns 1 if added, 0 if skipped, -1 on error. */
static int en2zh_add(En2zh *g, const Clause *c, TfErr *err)
{
    Text en, zh;
    int src[32], tgt[32];
    render_en(c, &en);
    render_zh(c, &zh);
    int ns = encode_all(&g->d->src, en.s, src, err);
    int nt = ns < 0 ? -1 : encode_all(&g->d->tgt, zh.s, tgt, err);
    if (nt < 0)
        return -1;
    if (ns > EN_MAX_TOKENS || seqset_find(&g->seen, g->d, src, ns) >= 0)
        return 0;
    int at = ds_push(g->d, src, ns, tgt, nt, err);
    if (at < 0 || seqset_add(&g->seen, g->d, at, err))
        return -1;
    if (at >= g->cap) {
        int cap = g->cap ? g->cap * 2 : 4096;
        int *k = realloc(g->kind, (size_t)cap * sizeof *k);
        if (!k)
            return tf_fail(err, "out of memory");
        g->kind = k;
        g->cap = cap;
    }
    g->kind[at] = c->kind;
    return 1;
}

static int en2zh_generate(En2zh *g, Rng *r, TfErr *err)
{
    for (int i = 0; i < COUNT(SHOWCASE); i++) {
        if (!clause_ok(&SHOWCASE[i]) || en2zh_add(g, &SHOWCASE[i], err) != 1)
            return tf_fail(err, "en2zh: showcase sentence %d breaks the grammar", i);
    }
    g->n_showcase = g->d->n_pairs;
    for (int k = 0; k < N_KIND; k++) {
        int have = 0;
        for (int i = 0; i < g->d->n_pairs; i++)
            have += g->kind[i] == k;
        /* stop after many failed draws: the construction may be exhausted */
        for (long tries = 0; have < KIND_QUOTA[k] && tries < 200L * KIND_QUOTA[k];
             tries++) {
            Clause c = draw_clause(r, k);
            int rc = clause_ok(&c) ? en2zh_add(g, &c, err) : 0;
            if (rc < 0)
                return -1;
            have += rc;
        }
    }
    return 0;
}

/* Held-out: a share of every construction, proportional to its size, at
 * least one, never a showcase sentence, never all of a construction. */
static int en2zh_heldout(En2zh *g, int n_heldout, Rng *r, unsigned char *held)
{
    int n = g->d->n_pairs;
    int *idx = malloc((size_t)n * sizeof *idx);
    if (!idx)
        return -1;
    for (int k = 0; k < N_KIND; k++) {
        int m = 0;
        for (int i = g->n_showcase; i < n; i++)
            if (g->kind[i] == k)
                idx[m++] = i;
        long want = ((long)n_heldout * m + n / 2) / n;
        if (want < 1)
            want = 1;
        if (want > m - 1)
            want = m - 1;
        pick_heldout(idx, m, (int)want, r, held);
    }
    free(idx);
    return 0;
}

static int task_en2zh(Dataset *d, const TaskOpts *o, TfErr *err)
{
    if (en2zh_vocab(d, err))
        return -1;
    En2zh g = {.d = d};
    Rng r;
    rng_seed(&r, o->seed);
    int rc = en2zh_generate(&g, &r, err);
    unsigned char *held = rc ? NULL : calloc((size_t)d->n_pairs, 1);
    if (!rc && !held)
        rc = tf_fail(err, "out of memory");
    int n_held = o->n_heldout ? o->n_heldout : TASK_DEFAULT_HELDOUT;
    if (!rc && en2zh_heldout(&g, n_held, &r, held))
        rc = tf_fail(err, "out of memory");
    if (!rc)
        rc = ds_split(d, held, &r, err);
    free(held);
    free(g.kind);
    seqset_free(&g.seen);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* The task table                                                          */
/* ---------------------------------------------------------------------- */

static const char *const TASK_NAMES[] = {"copy", "reverse", "sort", "en2zh"};
static const char *const TASK_HELP[] = {
    "copy a string of letters a-z (character level): \"hello\" -> \"hello\"",
    "reverse a string of letters a-z (character level): \"hello\" -> \"olleh\"",
    "sort the letters of a string (character level): \"hello\" -> \"ehllo\"",
    "rule-based English->Chinese (word level): \"i read books today\" -> \"我 今天 读 书\"",
};

const char *const *task_names(int *n)
{
    if (n)
        *n = COUNT(TASK_NAMES);
    return TASK_NAMES;
}

static int task_index(const char *name)
{
    for (int i = 0; name && i < COUNT(TASK_NAMES); i++)
        if (strcmp(name, TASK_NAMES[i]) == 0)
            return i;
    return -1;
}

const char *task_describe(const char *name)
{
    int i = task_index(name);
    return i < 0 ? "" : TASK_HELP[i];
}

int task_build(Dataset *d, const char *name, const TaskOpts *o, TfErr *err)
{
    static const TaskOpts defaults = {0};
    memset(d, 0, sizeof *d);
    if (!o)
        o = &defaults;
    int t = task_index(name);
    if (t < 0)
        return tf_fail(err, "unknown task \"%s\" (known: copy, reverse, sort, en2zh)",
                       name ? name : "(null)");
    if (o->n_heldout < 0 || o->n_heldout > TASK_MAX_HELDOUT)
        return tf_fail(err, "n_heldout %d out of range 0..%d", o->n_heldout,
                       TASK_MAX_HELDOUT);
    snprintf(d->name, sizeof d->name, "%s", TASK_NAMES[t]);
    int rc = t == 3 ? task_en2zh(d, o, err) : task_char(d, t, o, err);
    if (rc) {
        tf_fail_prefix(err, "task %s", TASK_NAMES[t]);
        dataset_free(d);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Looking a sentence up                                                   */
/* ---------------------------------------------------------------------- */

int dataset_find(const Dataset *d, const char *src_text, char *tgt_out,
                 size_t cap)
{
    if (cap)
        tgt_out[0] = 0;
    int n = vocab_encode(&d->src, src_text, NULL, NULL, 0, NULL, NULL);
    if (n <= 0)
        return 0;
    int *ids = malloc((size_t)n * sizeof *ids), unk = 0, found = 0;
    if (!ids)
        return 0;
    vocab_encode(&d->src, src_text, ids, NULL, n, &unk, NULL);
    for (int i = 0; !unk && i < d->n_pairs && !found; i++) {
        const Pair *p = &d->pairs[i];
        if (p->src_len != n || !seq_eq(ids, d->ids + p->src_off, n))
            continue;
        int *t = realloc(ids, (size_t)(p->tgt_len ? p->tgt_len : 1) * sizeof *t);
        if (!t)
            break;
        ids = t;
        for (int j = 0; j < p->tgt_len; j++)
            ids[j] = d->ids[p->tgt_off + j];
        vocab_decode(&d->tgt, ids, p->tgt_len, tgt_out, cap);
        found = 1;
    }
    free(ids);
    return found;
}

/* ---------------------------------------------------------------------- */
/* The TSV loader                                                          */
/* ---------------------------------------------------------------------- */

#define TSV_MAX_LINE_BYTES (1 << 24) /* longer lines are bad lines */
#define TSV_MAX_WARNINGS 100         /* bad lines reported one by one */

/* Scratch space for one line's tokens, reused across lines. */
typedef struct TsvScratch {
    TokSpan *sp;
    int *ids;
    int cap;
} TsvScratch;

static int scratch_grow(TsvScratch *s, int n)
{
    if (n <= s->cap)
        return 0;
    int cap = s->cap ? s->cap : 64;
    while (cap < n)
        cap = cap > INT_MAX / 2 ? n : cap * 2;
    TokSpan *sp = realloc(s->sp, (size_t)cap * sizeof *sp);
    if (sp)
        s->sp = sp;
    int *ids = realloc(s->ids, (size_t)cap * sizeof *ids);
    if (ids)
        s->ids = ids;
    if (!sp || !ids)
        return -1;
    s->cap = cap;
    return 0;
}

/* One side of a line, tokenised. */
typedef struct Side {
    const char *text;
    size_t len;
    int n;        /* tokens */
    TokSpan *sp;  /* (n) owned */
} Side;

/* Tokenise a side; returns NULL when fine, else the reason it is bad.
 * *oom is set when memory ran out. */
static const char *side_split(Side *s, TokMode mode, int max_len,
                              const char *which, char *why, size_t why_cap,
                              int *oom)
{
    s->n = tok_split(mode, s->text, s->len, NULL, 0, NULL);
    if (s->n == 0) {
        snprintf(why, why_cap, "empty %s", which);
        return why;
    }
    if (max_len > 0 && s->n > max_len) {
        snprintf(why, why_cap, "%s has %d tokens, more than %d", which, s->n,
                 max_len);
        return why;
    }
    s->sp = malloc((size_t)s->n * sizeof *s->sp);
    if (!s->sp) {
        *oom = 1;
        return "out of memory";
    }
    tok_split(mode, s->text, s->len, s->sp, s->n, NULL);
    for (int i = 0; i < s->n; i++) {
        if (s->sp[i].len > VOCAB_MAX_TOKEN_BYTES) {
            snprintf(why, why_cap, "%s token %d longer than %d bytes", which,
                     i + 1, VOCAB_MAX_TOKEN_BYTES);
            return why;
        }
    }
    return NULL;
}

/* "<eos>" typed in a file would become the real end-of-sentence token. */
static const char *side_reserved(const Vocab *v, const Side *sd, char *why,
                                 size_t why_cap)
{
    for (int i = 0; i < sd->n; i++) {
        int id = vocab_find(v, sd->text + sd->sp[i].off, sd->sp[i].len);
        if (id >= 0 && id < TOK_NSPECIAL) {
            snprintf(why, why_cap, "%s is a reserved token", vocab_token(v, id));
            return why;
        }
    }
    return NULL;
}

/* Check a line's shape and split it into its two sides. */
static const char *line_check(char *line, size_t len, Side *src, Side *tgt,
                              char *why, size_t why_cap)
{
    if (len > TSV_MAX_LINE_BYTES)
        return "line longer than 16 MiB";
    char *tab = memchr(line, '\t', len);
    if (!tab)
        return "no tab between source and target";
    size_t at = (size_t)(tab - line);
    if (memchr(tab + 1, '\t', len - at - 1))
        return "more than one tab";
    size_t bad;
    if (utf8_check(line, len, &bad)) {
        snprintf(why, why_cap, "invalid UTF-8 at byte %zu", bad + 1);
        return why;
    }
    src->text = line;
    src->len = at;
    tgt->text = tab + 1;
    tgt->len = len - at - 1;
    return NULL;
}

typedef struct TsvState {
    Dataset *d;
    const char *path;
    TokMode src_mode, tgt_mode;
    int max_len, line, n_bad;
    SeqSet seen;
    int *first_line; /* (cap) line number of each pair */
    int cap;
} TsvState;

static void tsv_warn(TsvState *st, const char *reason)
{
    st->n_bad++;
    if (st->n_bad <= TSV_MAX_WARNINGS)
        tf_log(TF_LOG_WARN, "%s:%d: %s", st->path, st->line, reason);
    else if (st->n_bad == TSV_MAX_WARNINGS + 1)
        tf_log(TF_LOG_WARN, "%s: more bad lines, not reported one by one",
               st->path);
}

/* Look the side's tokens up (ids into s->ids); 1 if all are known. */
static int side_lookup(const Vocab *v, const Side *sd, int *ids)
{
    for (int i = 0; i < sd->n; i++) {
        ids[i] = vocab_find(v, sd->text + sd->sp[i].off, sd->sp[i].len);
        if (ids[i] < 0)
            return 0;
    }
    return 1;
}

static int side_add(Vocab *v, const Side *sd, int *ids, TfErr *err)
{
    for (int i = 0; i < sd->n; i++) {
        ids[i] = vocab_add(v, sd->text + sd->sp[i].off, sd->sp[i].len, err);
        if (ids[i] < 0)
            return -1;
    }
    return 0;
}

/* Add a checked pair, unless its source is already there. */
static int tsv_add(TsvState *st, const Side *src, const Side *tgt,
                   TsvScratch *sc, TfErr *err)
{
    Dataset *d = st->d;
    if (scratch_grow(sc, src->n > tgt->n ? src->n : tgt->n))
        return tf_fail(err, "out of memory");
    if (side_lookup(&d->src, src, sc->ids)) {
        int dup = seqset_find(&st->seen, d, sc->ids, src->n);
        if (dup >= 0) {
            tf_log(TF_LOG_WARN, "%s:%d: source repeats line %d, skipped",
                   st->path, st->line, st->first_line[dup]);
            return 0;
        }
    }
    if (side_add(&d->src, src, sc->ids, err))
        return -1;
    int *tids = malloc((size_t)tgt->n * sizeof *tids);
    if (!tids)
        return tf_fail(err, "out of memory");
    int at = side_add(&d->tgt, tgt, tids, err) ? -1
             : ds_push(d, sc->ids, src->n, tids, tgt->n, err);
    free(tids);
    if (at < 0 || seqset_add(&st->seen, d, at, err))
        return -1;
    if (at >= st->cap) {
        int cap = st->cap ? st->cap * 2 : 1024;
        int *fl = realloc(st->first_line, (size_t)cap * sizeof *fl);
        if (!fl)
            return tf_fail(err, "out of memory");
        st->first_line = fl;
        st->cap = cap;
    }
    st->first_line[at] = st->line;
    return 0;
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\v' &&
            s[i] != '\f')
            return 0;
    return 1;
}

/* One line (without its '\n'): skip, warn, add, or fail. */
static int tsv_line(TsvState *st, char *line, size_t len, TsvScratch *sc,
                    TfErr *err)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (memchr(line, 0, len))
        return tf_fail(err, "%s:%d: NUL byte, this is not a text file",
                       st->path, st->line);
    if (is_blank(line, len) || line[0] == '#')
        return 0;
    char why[128];
    Side src = {0}, tgt = {0};
    int oom = 0, rc = 0;
    const char *bad = line_check(line, len, &src, &tgt, why, sizeof why);
    if (!bad)
        bad = side_split(&src, st->src_mode, st->max_len, "source", why,
                         sizeof why, &oom);
    if (!bad)
        bad = side_split(&tgt, st->tgt_mode, st->max_len, "target", why,
                         sizeof why, &oom);
    if (!bad)
        bad = side_reserved(&st->d->src, &src, why, sizeof why);
    if (!bad)
        bad = side_reserved(&st->d->tgt, &tgt, why, sizeof why);
    if (oom)
        rc = tf_fail(err, "out of memory");
    else if (bad)
        tsv_warn(st, bad);
    else
        rc = tsv_add(st, &src, &tgt, sc, err);
    free(src.sp);
    free(tgt.sp);
    return rc;
}

static int tsv_read(TsvState *st, FILE *f, TfErr *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    TsvScratch sc = {0};
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        st->line++;
        size_t len = (size_t)got, skip = 0;
        if (len > 0 && line[len - 1] == '\n')
            len--;
        /* a byte-order mark, as some editors write, is not part of the text */
        if (st->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
            skip = 3;
        rc = tsv_line(st, line + skip, len - skip, &sc, err);
    }
    if (rc == 0 && ferror(f))
        rc = tf_fail(err, "%s: read error after line %d: %s", st->path,
                     st->line, strerror(errno));
    free(line);
    free(sc.sp);
    free(sc.ids);
    return rc;
}

/* "data/en-fr.tsv" -> "en-fr" */
static void base_name(char *out, size_t cap, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    int n = dot && dot > b ? (int)(dot - b) : (int)strlen(b);
    snprintf(out, cap, "%.*s", n, b);
}

/* About 10% held out, at least one pair when there are two. */
static int tsv_split(Dataset *d, uint64_t seed, TfErr *err)
{
    int n = d->n_pairs, k = n >= 2 ? (n + 5) / 10 : 0;
    if (n >= 2 && k < 1)
        k = 1;
    unsigned char *held = calloc((size_t)n, 1);
    int *idx = malloc((size_t)n * sizeof *idx);
    int rc = 0;
    if (!held || !idx) {
        rc = tf_fail(err, "out of memory");
    } else {
        Rng r;
        rng_seed(&r, seed);
        for (int i = 0; i < n; i++)
            idx[i] = i;
        pick_heldout(idx, n, k, &r, held);
        rc = ds_split(d, held, NULL, err); /* keep file order */
    }
    free(held);
    free(idx);
    return rc;
}

int tsv_load(Dataset *d, const char *path, TokMode src_mode, TokMode tgt_mode,
             int max_len, uint64_t seed, int *n_bad, TfErr *err)
{
    memset(d, 0, sizeof *d);
    if (n_bad)
        *n_bad = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tf_fail(err, "%s: cannot open: %s", path, strerror(errno));
    TsvState st = {.d = d, .path = path, .src_mode = src_mode,
                   .tgt_mode = tgt_mode, .max_len = max_len};
    base_name(d->name, sizeof d->name, path);
    int rc = vocab_init(&d->src, src_mode, err);
    if (!rc)
        rc = vocab_init(&d->tgt, tgt_mode, err);
    if (!rc)
        rc = tsv_read(&st, f, err);
    fclose(f);
    if (!rc && st.n_bad > TSV_MAX_WARNINGS)
        tf_log(TF_LOG_WARN, "%s: %d bad lines in all", path, st.n_bad);
    if (!rc && d->n_pairs == 0)
        rc = tf_fail(err, "%s: no usable sentence pairs (%d lines, %d bad)",
                     path, st.line, st.n_bad);
    if (!rc)
        rc = tsv_split(d, seed, err);
    if (n_bad)
        *n_bad = st.n_bad;
    seqset_free(&st.seen);
    free(st.first_line);
    if (rc) {
        dataset_free(d);
        return -1;
    }
    return 0;
}
