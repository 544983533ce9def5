/* pickle.c - a torch.save(state_dict) reader that executes nothing (see
 * pickle.h). Every value lives in one arena freed at the end; the memo and
 * the stack hold pointers into it.
 *
 * Memory follows the input: a state dict's stack is a few thousand values
 * deep at most (SETITEMS batches of 1000 pairs) with a handful of MARKs, so
 * the stack, the MARKs on it and the memo are capped, and every byte the
 * reader takes is counted against a budget of a few MB plus a small
 * multiple of the pickle's length. A stack bomb ("]]]]...", "((((...") or a
 * pickle that builds values without end fails in milliseconds. */
#include "pickle.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "file.h"

enum { V_NONE, V_BOOL, V_INT, V_STR, V_TUPLE, V_LIST, V_DICT, V_GLOBAL, V_STORAGE, V_TENSOR, V_MARK };
enum { G_ODICT, G_REBUILD, G_STORAGE_F32, G_STORAGE_F16, G_STORAGE_BF16 };

typedef struct Val {
    int kind;
    int n, cap;
    long long i; /* int, bool, global id, storage numel */
    char *s;     /* string, storage key */
    struct Val **it;
    PkTensor *t; /* a tensor's, owned */
} Val;

typedef struct Pk {
    const unsigned char *p, *end;
    const char *name;
    TfErr *err;
    Val **all;
    size_t n_all, cap_all;
    Val **st;
    size_t sp, cap_st;
    Val **memo;
    size_t cap_memo;
    size_t marks;        /* MARKs on the stack */
    size_t bytes, budget; /* taken so far; the most that may be */
    int over;             /* the budget was exceeded (the error is set) */
} Pk;

#define PK_MAX_ITEMS (1 << 24)
#define PK_MAX_STACK ((size_t)1 << 16) /* values on the stack */
#define PK_MAX_MARKS 64                /* MARKs on the stack at once */
#define PK_BUDGET_BASE ((size_t)24 << 20) /* a 10 KB state dict pickle takes 160 KB */
#define PK_BUDGET_PER_BYTE 4

/* Count n more bytes against the budget: 0, or -1 with the error set. */
static int take(Pk *k, size_t n)
{
    if (n > k->budget - k->bytes) {
        tf_fail(k->err, "%s: the pickle needs more than %zu MiB, far more than a state dict of its size; refused",
                k->name, k->budget >> 20);
        k->over = 1;
        return -1;
    }
    k->bytes += n;
    return 0;
}

static Val *new_val(Pk *k, int kind)
{
    if (take(k, sizeof(Val) + 16 + sizeof(Val *)))
        return NULL;
    if (k->n_all == k->cap_all) {
        size_t c = k->cap_all ? k->cap_all * 2 : 256;
        Val **a = realloc(k->all, c * sizeof *a);
        if (!a)
            return NULL;
        k->all = a;
        k->cap_all = c;
    }
    Val *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->kind = kind;
    k->all[k->n_all++] = v;
    return v;
}

static int add_item(Pk *k, Val *c, Val *x)
{
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 4;
        if (cap > PK_MAX_ITEMS || take(k, (size_t)(cap - c->cap) * sizeof(Val *)))
            return -1;
        Val **it = realloc(c->it, (size_t)cap * sizeof *it);
        if (!it)
            return -1;
        c->it = it;
        c->cap = cap;
    }
    c->it[c->n++] = x;
    return 0;
}

static int push(Pk *k, Val *v)
{
    if (!v)
        return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
    if (k->sp >= PK_MAX_STACK)
        return tf_fail(k->err, "%s: the pickle's stack grows past %zu values; a state dict's never does; refused",
                       k->name, PK_MAX_STACK);
    if (v->kind == V_MARK && k->marks >= PK_MAX_MARKS)
        return tf_fail(k->err, "%s: the pickle nests more than %d MARKs; a state dict's never does; refused",
                       k->name, PK_MAX_MARKS);
    if (k->sp == k->cap_st) {
        size_t c = k->cap_st ? k->cap_st * 2 : 64;
        if (take(k, (c - k->cap_st) * sizeof(Val *)))
            return -1;
        Val **s = realloc(k->st, c * sizeof *s);
        if (!s)
            return tf_fail(k->err, "%s: out of memory", k->name);
        k->st = s;
        k->cap_st = c;
    }
    k->st[k->sp++] = v;
    k->marks += v->kind == V_MARK;
    return 0;
}

/* Lower the stack to sp, counting the MARKs that leave it. */
static void drop_to(Pk *k, size_t sp)
{
    for (size_t i = sp; i < k->sp; i++)
        k->marks -= k->st[i]->kind == V_MARK;
    k->sp = sp;
}

static Val *pop(Pk *k)
{
    if (k->sp == 0 || k->st[k->sp - 1]->kind == V_MARK) {
        tf_fail(k->err, "%s: the pickle pops an empty stack", k->name);
        return NULL;
    }
    return k->st[--k->sp];
}

/* Index just above the topmost MARK, or -1. */
static long find_mark(Pk *k)
{
    for (size_t i = k->sp; i > 0; i--)
        if (k->st[i - 1]->kind == V_MARK)
            return (long)i;
    tf_fail(k->err, "%s: the pickle has no MARK where one is needed", k->name);
    return -1;
}

static int need(Pk *k, size_t n)
{
    if ((size_t)(k->end - k->p) < n)
        return tf_fail(k->err, "%s: the pickle ends in the middle of an opcode", k->name);
    return 0;
}

static unsigned long long le(const unsigned char *p, int n)
{
    unsigned long long v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The opcode's w-byte little-endian argument into *v, stepped over; -1
 * when the pickle ends first. */
static int arg(Pk *k, int w, unsigned long long *v)
{
    if (need(k, (size_t)w))
        return -1;
    *v = le(k->p, w);
    k->p += w;
    return 0;
}

static Val *str_val(Pk *k, const unsigned char *s, size_t n)
{
    Val *v = new_val(k, V_STR);
    if (!v || take(k, n + 17) || !(v->s = malloc(n + 1)))
        return NULL;
    memcpy(v->s, s, n);
    v->s[n] = 0;
    return v;
}

static int global(Pk *k, const char *mod, const char *name)
{
    static const struct {
        const char *mod, *name;
        int id;
    } OK[] = {{"collections", "OrderedDict", G_ODICT},
              {"torch._utils", "_rebuild_tensor_v2", G_REBUILD},
              {"torch", "FloatStorage", G_STORAGE_F32},
              {"torch", "HalfStorage", G_STORAGE_F16},
              {"torch", "BFloat16Storage", G_STORAGE_BF16}};
    for (size_t i = 0; i < sizeof OK / sizeof OK[0]; i++)
        if (!strcmp(mod, OK[i].mod) && !strcmp(name, OK[i].name)) {
            Val *v = new_val(k, V_GLOBAL);
            if (v)
                v->i = OK[i].id;
            return push(k, v);
        }
    return tf_fail(k->err, "%s: the pickle calls %.80s.%.80s, which a state dict does not need; refused",
                   k->name, mod, name);
}

static int memo_put(Pk *k, size_t idx)
{
    if (k->sp == 0)
        return tf_fail(k->err, "%s: the pickle memoizes an empty stack", k->name);
    /* a pickle numbers its memo from 0 as it goes: an index beyond the
     * values made so far only asks for memory */
    if (idx >= PK_MAX_ITEMS || idx > k->n_all + 64)
        return tf_fail(k->err, "%s: memo index %zu is too large", k->name, idx);
    if (idx >= k->cap_memo) {
        size_t c = k->cap_memo ? k->cap_memo : 64;
        while (c <= idx)
            c *= 2;
        if (take(k, (c - k->cap_memo) * sizeof(Val *)))
            return -1;
        Val **m = realloc(k->memo, c * sizeof *m);
        if (!m)
            return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
        memset(m + k->cap_memo, 0, (c - k->cap_memo) * sizeof *m);
        k->memo = m;
        k->cap_memo = c;
    }
    k->memo[idx] = k->st[k->sp - 1];
    return 0;
}

static int memo_get(Pk *k, size_t idx)
{
    if (idx >= k->cap_memo || !k->memo[idx])
        return tf_fail(k->err, "%s: the pickle reads memo %zu, which was never set", k->name, idx);
    return push(k, k->memo[idx]);
}

/* Items above the topmost MARK into a new container of kind. */
static int collect(Pk *k, int kind)
{
    long m = find_mark(k);
    if (m < 0)
        return -1;
    Val *c = new_val(k, kind);
    if (!c)
        return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
    for (size_t i = (size_t)m; i < k->sp; i++)
        if (add_item(k, c, k->st[i]))
            return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
    drop_to(k, (size_t)m - 1);
    return push(k, c);
}

static int is_int(const Val *v) { return v && (v->kind == V_INT || v->kind == V_BOOL); }

/* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) */
static Val *rebuild(Pk *k, const Val *a)
{
    if (a->kind != V_TUPLE || a->n < 6 || a->it[0]->kind != V_STORAGE || !is_int(a->it[1]) ||
        a->it[2]->kind != V_TUPLE || a->it[3]->kind != V_TUPLE || a->it[2]->n != a->it[3]->n ||
        a->it[2]->n > PK_MAX_DIMS) {
        tf_fail(k->err, "%s: _rebuild_tensor_v2 with arguments a state dict does not have", k->name);
        return NULL;
    }
    Val *v = new_val(k, V_TENSOR);
    if (!v || take(k, sizeof(PkTensor) + 16) || !(v->t = calloc(1, sizeof *v->t))) {
        if (!k->over)
            tf_fail(k->err, "%s: out of memory", k->name);
        return NULL;
    }
    const Val *s = a->it[0];
    v->t->storage = s->s;
    v->t->dtype = (int)(s->i >> 40);
    v->t->storage_numel = s->i & ((1ll << 40) - 1);
    v->t->offset = a->it[1]->i;
    v->t->nd = a->it[2]->n;
    long long expect = 1;
    v->t->contiguous = 1;
    for (int d = v->t->nd - 1; d >= 0; d--) {
        const Val *sz = a->it[2]->it[d], *sd = a->it[3]->it[d];
        if (!is_int(sz) || !is_int(sd) || sz->i < 0 || sz->i > (1ll << 40)) {
            tf_fail(k->err, "%s: a tensor's size or stride is not an integer", k->name);
            return NULL;
        }
        v->t->shape[d] = sz->i;
        if (sz->i != 1 && sd->i != expect)
            v->t->contiguous = 0;
        expect *= sz->i;
        if (expect > (1ll << 40)) {
            tf_fail(k->err, "%s: a tensor is too large", k->name);
            return NULL;
        }
    }
    if (v->t->offset < 0 || v->t->offset + expect > v->t->storage_numel) {
        tf_fail(k->err, "%s: a tensor reaches outside its storage", k->name);
        return NULL;
    }
    return v;
}

static int reduce(Pk *k)
{
    Val *args = pop(k), *fn = args ? pop(k) : NULL;
    if (!fn)
        return -1;
    if (fn->kind != V_GLOBAL || args->kind != V_TUPLE)
        return tf_fail(k->err, "%s: REDUCE of something that is not an allowed global", k->name);
    if (fn->i == G_ODICT) {
        if (args->n != 0)
            return tf_fail(k->err, "%s: OrderedDict called with arguments", k->name);
        return push(k, new_val(k, V_DICT));
    }
    if (fn->i == G_REBUILD) {
        Val *t = rebuild(k, args);
        return t ? push(k, t) : -1;
    }
    return tf_fail(k->err, "%s: REDUCE of a storage type", k->name);
}

/* ('storage', StorageType, key, location, numel) */
static int persid(Pk *k)
{
    Val *pid = pop(k);
    if (!pid)
        return -1;
    if (pid->kind != V_TUPLE || pid->n != 5 || pid->it[0]->kind != V_STR ||
        strcmp(pid->it[0]->s, "storage") || pid->it[1]->kind != V_GLOBAL || pid->it[1]->i < G_STORAGE_F32 ||
        pid->it[2]->kind != V_STR || !is_int(pid->it[4]) || pid->it[4]->i < 0 ||
        pid->it[4]->i >= (1ll << 40))
        return tf_fail(k->err, "%s: a persistent id that is not a float storage", k->name);
    Val *s = new_val(k, V_STORAGE);
    if (!s)
        return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
    s->s = pid->it[2]->s;
    s->i = ((long long)(pid->it[1]->i - G_STORAGE_F32) << 40) | pid->it[4]->i;
    return push(k, s);
}

static int setitems(Pk *k, long m)
{
    Val *d = m >= 1 ? k->st[m - 1] : NULL;
    if (!d || (d->kind != V_DICT && d->kind != V_LIST))
        return tf_fail(k->err, "%s: SETITEMS/APPENDS on something that is not a dict or list", k->name);
    if (d->kind == V_DICT && (k->sp - (size_t)m) % 2)
        return tf_fail(k->err, "%s: SETITEMS with an odd number of items", k->name);
    for (size_t i = (size_t)m; i < k->sp; i++)
        if (add_item(k, d, k->st[i]))
            return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
    drop_to(k, (size_t)m);
    return 0;
}

static int step(Pk *k, int *stop)
{
    if (need(k, 1))
        return -1;
    int op = *k->p++;
    const unsigned char *p = k->p;
    size_t n;
    unsigned long long av;
    Val *v;
    switch (op) {
    case 0x80: /* PROTO */
        return arg(k, 1, &av);
    case 0x95: /* FRAME */
        return arg(k, 8, &av);
    case 'c': { /* GLOBAL module\nname\n */
        const unsigned char *a = memchr(p, '\n', (size_t)(k->end - p));
        const unsigned char *b = a ? memchr(a + 1, '\n', (size_t)(k->end - a - 1)) : NULL;
        if (!b || a - p > 200 || b - a > 200)
            return tf_fail(k->err, "%s: a malformed GLOBAL", k->name);
        char mod[256], name[256];
        memcpy(mod, p, (size_t)(a - p));
        mod[a - p] = 0;
        memcpy(name, a + 1, (size_t)(b - a - 1));
        name[b - a - 1] = 0;
        k->p = b + 1;
        return global(k, mod, name);
    }
    case 0x93: { /* STACK_GLOBAL */
        Val *nm = pop(k), *md = nm ? pop(k) : NULL;
        if (!md || md->kind != V_STR || nm->kind != V_STR)
            return tf_fail(k->err, "%s: STACK_GLOBAL without two strings", k->name);
        return global(k, md->s, nm->s);
    }
    case '(':
        return push(k, new_val(k, V_MARK));
    case 'q': /* BINPUT */
    case 'r': /* LONG_BINPUT */
        return arg(k, op == 'q' ? 1 : 4, &av) ? -1 : memo_put(k, (size_t)av);
    case 0x94: /* MEMOIZE */
        for (n = 0; n < k->cap_memo && k->memo[n]; n++)
            ;
        return memo_put(k, n);
    case 'h': /* BINGET */
    case 'j': /* LONG_BINGET */
        return arg(k, op == 'h' ? 1 : 4, &av) ? -1 : memo_get(k, (size_t)av);
    case ')':
        return push(k, new_val(k, V_TUPLE));
    case '}':
        return push(k, new_val(k, V_DICT));
    case ']':
        return push(k, new_val(k, V_LIST));
    case 't':
        return collect(k, V_TUPLE);
    case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
        int m = op - 0x84;
        if (k->sp < (size_t)m)
            return tf_fail(k->err, "%s: TUPLE%d on a short stack", k->name, m);
        v = new_val(k, V_TUPLE);
        if (!v)
            return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
        for (int i = m; i > 0; i--) {
            if (k->st[k->sp - (size_t)i]->kind == V_MARK)
                return tf_fail(k->err, "%s: a malformed TUPLE%d", k->name, m);
            if (add_item(k, v, k->st[k->sp - (size_t)i]))
                return k->over ? -1 : tf_fail(k->err, "%s: out of memory", k->name);
        }
        drop_to(k, k->sp - (size_t)m);
        return push(k, v);
    }
    case 'X': case 0x8c: case 0x8d: { /* BINUNICODE, SHORT_BINUNICODE, BINUNICODE8 */
        int w = op == 'X' ? 4 : op == 0x8c ? 1 : 8;
        if (need(k, (size_t)w))
            return -1;
        unsigned long long len = le(p, w);
        k->p += w;
        if (len > (unsigned long long)(k->end - k->p))
            return tf_fail(k->err, "%s: a string runs past the end of the pickle", k->name);
        v = str_val(k, k->p, (size_t)len);
        k->p += len;
        return push(k, v);
    }
    case 'J': case 'K': case 'M': case 0x8a: { /* BININT, BININT1, BININT2, LONG1 */
        long long x;
        if (op == 0x8a) {
            if (need(k, 1) || need(k, (size_t)1 + p[0]))
                return -1;
            int nb = p[0];
            if (nb > 8)
                return tf_fail(k->err, "%s: an integer of %d bytes is too large", k->name, nb);
            unsigned long long u = le(p + 1, nb);
            if (nb > 0 && nb < 8 && (p[nb] & 0x80))
                u |= ~0ull << (8 * nb);
            x = (long long)u;
            k->p += 1 + nb;
        } else {
            int w = op == 'J' ? 4 : op == 'K' ? 1 : 2;
            if (need(k, (size_t)w))
                return -1;
            x = (long long)le(p, w);
            if (op == 'J')
                x = (int32_t)(uint32_t)x;
            k->p += w;
        }
        v = new_val(k, V_INT);
        if (v)
            v->i = x;
        return push(k, v);
    }
    case 'N':
        return push(k, new_val(k, V_NONE));
    case 0x88: case 0x89:
        v = new_val(k, V_BOOL);
        if (v)
            v->i = op == 0x88;
        return push(k, v);
    case 'Q':
        return persid(k);
    case 'R':
        return reduce(k);
    case 's': case 'a': { /* SETITEM, APPEND */
        size_t m = op == 's' ? 2 : 1;
        if (k->sp < m + 1)
            return tf_fail(k->err, "%s: SETITEM/APPEND on a short stack", k->name);
        return setitems(k, (long)(k->sp - m));
    }
    case 'u': case 'e': { /* SETITEMS, APPENDS */
        long m = find_mark(k);
        if (m < 0)
            return -1;
        /* drop the MARK: move the items down one */
        memmove(k->st + m - 1, k->st + m, (k->sp - (size_t)m) * sizeof *k->st);
        k->sp--;
        k->marks--;
        return setitems(k, m - 1);
    }
    case 'b': { /* BUILD: the state (e.g. _metadata) is not needed */
        Val *state = pop(k);
        if (!state)
            return -1;
        if (k->sp == 0 || k->st[k->sp - 1]->kind != V_DICT)
            return tf_fail(k->err, "%s: BUILD on something that is not a dict", k->name);
        return 0;
    }
    case '.':
        *stop = 1;
        return 0;
    default:
        return tf_fail(k->err, "%s: pickle opcode 0x%02x is not one torch.save(state_dict) uses; refused",
                       k->name, op);
    }
}

static int build_table(Pk *k, const Val *d, PkTable *out)
{
    if (!d || d->kind != V_DICT)
        return tf_fail(k->err, "%s: the pickle does not hold a state dict", k->name);
    out->t = calloc((size_t)d->n / 2 + 1, sizeof *out->t);
    if (!out->t)
        return tf_fail(k->err, "%s: out of memory", k->name);
    for (int i = 0; i + 1 < d->n; i += 2) {
        const Val *key = d->it[i], *val = d->it[i + 1];
        if (key->kind != V_STR || val->kind != V_TENSOR)
            return tf_fail(k->err, "%s: state dict entry %d is not a name and a tensor", k->name, i / 2);
        PkTensor *t = &out->t[out->n++];
        *t = *val->t;
        t->name = strdup(key->s);
        t->storage = strdup(val->t->storage);
        if (!t->name || !t->storage)
            return tf_fail(k->err, "%s: out of memory", k->name);
    }
    return 0;
}

int pk_parse(const unsigned char *buf, size_t len, const char *name, PkTable *out, TfErr *err)
{
    memset(out, 0, sizeof *out);
    Pk k = {buf, buf + len, name, err, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0, 0, 0};
    k.budget = PK_BUDGET_BASE + (len < ((size_t)1 << 40) ? len * PK_BUDGET_PER_BYTE : (size_t)1 << 45);
    int stop = 0, rc = 0;
    while (!stop && rc == 0)
        rc = step(&k, &stop);
    if (rc == 0 && k.sp != 1)
        rc = tf_fail(err, "%s: the pickle leaves %zu values on its stack, not 1", name, k.sp);
    if (rc == 0)
        rc = build_table(&k, k.st[0], out);
    for (size_t i = 0; i < k.n_all; i++) {
        if (k.all[i]->kind == V_STR)
            free(k.all[i]->s);
        free(k.all[i]->it);
        free(k.all[i]->t);
        free(k.all[i]);
    }
    free(k.all);
    free(k.st);
    free(k.memo);
    if (rc)
        pk_table_free(out);
    return rc;
}

void pk_table_free(PkTable *t)
{
    for (int i = 0; t->t && i < t->n; i++) {
        free(t->t[i].name);
        free(t->t[i].storage);
    }
    free(t->t);
    memset(t, 0, sizeof *t);
}

const PkTensor *pk_find(const PkTable *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->t[i].name, name))
            return &t->t[i];
    return NULL;
}

/* ---- the zip ---- */

/* a state dict's pickle is tens of KB (names and shapes; the data are
 * other entries): 16 MiB is far beyond any, and it is refused before it
 * is inflated */
#define PKL_MAX ((zip_uint64_t)16 << 20)

int pt_open(PtFile *f, const char *path, TfErr *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    FILE *probe = tf_fopen_regular(path, NULL, err); /* no FIFO, device or folder */
    if (!probe)
        return -1;
    fclose(probe);
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &ze);
    if (!z)
        return tf_fail(err, "%s: not a zip archive (torch.save's format)", path);
    f->zip = z;
    zip_int64_t n = zip_get_num_entries(z, 0);
    zip_int64_t idx = -1;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(z, (zip_uint64_t)i, 0);
        size_t l = nm ? strlen(nm) : 0;
        if (l >= 8 && l - 8 < sizeof f->prefix && !strcmp(nm + l - 8, "data.pkl")) {
            memcpy(f->prefix, nm, l - 8);
            f->prefix[l - 8] = 0;
            idx = i;
            break;
        }
    }
    if (idx < 0)
        return tf_fail(err, "%s: no data.pkl in the archive", path);
    zip_stat_t st;
    if (zip_stat_index(z, (zip_uint64_t)idx, 0, &st) || !(st.valid & ZIP_STAT_SIZE))
        return tf_fail(err, "%s: data.pkl is unreadable", path);
    if (st.size > PKL_MAX)
        return tf_fail(err, "%s: data.pkl is %.0f MiB, too large for a state dict's pickle (at most %d MiB)", path,
                       (double)st.size / (1 << 20), (int)(PKL_MAX >> 20));
    unsigned char *buf = malloc(st.size ? st.size : 1);
    zip_file_t *zf = buf ? zip_fopen_index(z, (zip_uint64_t)idx, 0) : NULL;
    int rc = -1;
    if (zf && zip_fread(zf, buf, st.size) == (zip_int64_t)st.size) {
        char name[4096];
        snprintf(name, sizeof name, "%s: data.pkl", path);
        rc = pk_parse(buf, st.size, name, &f->tab, err);
    } else {
        tf_fail(err, "%s: cannot read data.pkl", path);
    }
    if (zf)
        zip_fclose(zf);
    free(buf);
    return rc;
}

void pt_close(PtFile *f)
{
    if (f->zip)
        zip_discard(f->zip);
    pk_table_free(&f->tab);
    f->zip = NULL;
}

int pt_read(PtFile *f, const PkTensor *t, float *out, size_t n, TfErr *err)
{
    if (!t->contiguous)
        return tf_fail(err, "%s: tensor %s is not contiguous", f->path, t->name);
    char nm[600];
    snprintf(nm, sizeof nm, "%sdata/%s", f->prefix, t->storage);
    zip_stat_t st;
    int es = t->dtype == PK_F32 ? 4 : 2;
    if (zip_stat(f->zip, nm, 0, &st) || !(st.valid & ZIP_STAT_SIZE) ||
        st.size < (zip_uint64_t)t->storage_numel * (zip_uint64_t)es)
        return tf_fail(err, "%s: storage %s of tensor %s is missing or short", f->path, nm, t->name);
    zip_file_t *zf = zip_fopen(f->zip, nm, 0);
    if (!zf)
        return tf_fail(err, "%s: cannot open %s", f->path, nm);
    int rc = 0;
    unsigned char tmp[4096];
    zip_uint64_t skip = (zip_uint64_t)t->offset * es;
    while (skip > 0 && rc == 0) {
        zip_uint64_t c = skip < sizeof tmp ? skip : sizeof tmp;
        if (zip_fread(zf, tmp, c) != (zip_int64_t)c)
            rc = -1;
        skip -= c;
    }
    for (size_t i = 0; i < n && rc == 0;) {
        size_t c = (n - i) * es < sizeof tmp ? (n - i) : sizeof tmp / es;
        if (zip_fread(zf, tmp, c * es) != (zip_int64_t)(c * es)) {
            rc = -1;
            break;
        }
        for (size_t j = 0; j < c; j++) {
            if (es == 4) {
                memcpy(&out[i + j], tmp + 4 * j, 4);
            } else {
                unsigned short h = (unsigned short)(tmp[2 * j] | tmp[2 * j + 1] << 8);
                out[i + j] = t->dtype == PK_BF16 ? tf_bf16_to_f32(h) : tf_f16_to_f32(h);
            }
        }
        i += c;
    }
    zip_fclose(zf);
    if (rc)
        return tf_fail(err, "%s: tensor %s is cut short", f->path, t->name);
    return 0;
}

float tf_f16_to_f32(unsigned short h)
{
    unsigned s = (h >> 15) & 1, e = (h >> 10) & 31, f = h & 1023;
    float v;
    if (e == 0)
        v = ldexpf((float)f, -24);
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexpf((float)(f | 1024), (int)e - 25);
    return s ? -v : v;
}

float tf_bf16_to_f32(unsigned short h)
{
    unsigned u = (unsigned)h << 16;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}
