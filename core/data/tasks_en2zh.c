/* tasks_en2zh.c - the en2zh task: a small rule-based English -> Chinese
 * language (see tasks.h).
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
 * 56 Chinese tokens, the four specials included. */
#include "tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

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
    int at = dataset_push_seen(g->d, &g->seen, src, ns, tgt, nt, err);
    if (at < 0 || dataset_tag(&g->kind, &g->cap, at, c->kind, err))
        return -1;
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
static int en2zh_heldout(En2zh *g, int n_heldout, Rng *r, int *held)
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
        dataset_pick_heldout(idx, m, (int)want, r, held);
    }
    free(idx);
    return 0;
}

int task_en2zh(Dataset *d, const TaskOpts *o, TfErr *err)
{
    if (en2zh_vocab(d, err))
        return -1;
    En2zh g = {.d = d};
    Rng r;
    rng_seed(&r, o->seed);
    int rc = en2zh_generate(&g, &r, err);
    int *held = rc ? NULL : calloc((size_t)d->n_pairs, sizeof *held);
    if (!rc && !held)
        rc = tf_fail(err, "out of memory");
    int n_held = o->n_heldout ? o->n_heldout : TASK_DEFAULT_HELDOUT;
    if (!rc && en2zh_heldout(&g, n_held, &r, held))
        rc = tf_fail(err, "out of memory");
    if (!rc)
        rc = dataset_split(d, held, &r, err);
    free(held);
    free(g.kind);
    seqset_free(&g.seen);
    return rc;
}
