/* ren_cache.c - the per-font cache of rendered lines of text.
 *
 * A hash table over a fixed array of REN_TEXT_ENTRIES entries with
 * least-recently-used eviction, bounded in count and in texture bytes
 * (TEXT_BUDGET). An entry is keyed by the bytes of the line; ren_text.c
 * fills in its width and, once the line is drawn, its texture. */
#include "ren.h"
#include "ren_internal.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

uint32_t ren_hash_bytes(const char *s, int n, uint32_t seed)
{
    return tf_fnv_fold(tf_fnv_bytes(TF_FNV_SEED ^ seed, s, (size_t)n));
}

void ren_cache_init(TextCache *c)
{
    for (int i = 0; i < TEXT_BUCKETS; i++)
        c->bucket[i] = -1;
    for (int i = 0; i < REN_TEXT_ENTRIES; i++)
        c->e[i] = (TextEntry){.next = i + 1 < REN_TEXT_ENTRIES ? i + 1 : -1};
    c->free_head = 0;
    c->count = 0;
    c->bytes = 0;
    c->clock = 0;
}

static TextEntry *cache_find(TextCache *c, const char *s, int n, uint32_t h)
{
    for (int i = c->bucket[h & (TEXT_BUCKETS - 1)]; i >= 0; i = c->e[i].next) {
        TextEntry *e = &c->e[i];
        if (e->hash == h && e->len == n && memcmp(e->key, s, (size_t)n) == 0)
            return e;
    }
    return NULL;
}

static void entry_drop_texture(TextCache *c, TextEntry *e)
{
    if (e->tex)
        SDL_DestroyTexture(e->tex);
    c->bytes -= e->bytes;
    e->tex = NULL;
    e->bytes = 0;
}

static void entry_drop(TextCache *c, int i)
{
    TextEntry *e = &c->e[i];
    int *link = &c->bucket[e->hash & (TEXT_BUCKETS - 1)];
    while (*link != i)
        link = &c->e[*link].next;
    *link = e->next;
    entry_drop_texture(c, e);
    free(e->key);
    *e = (TextEntry){.next = c->free_head};
    c->free_head = i;
    c->count--;
}

/* The least recently used entry other than `keep` (with a texture if
 * with_tex), or -1. */
static int lru_victim(TextCache *c, const TextEntry *keep, int with_tex)
{
    int best = -1;
    for (int i = 0; i < REN_TEXT_ENTRIES; i++) {
        const TextEntry *e = &c->e[i];
        if (!e->key || e == keep || (with_tex && !e->tex))
            continue;
        if (best < 0 || e->used < c->e[best].used)
            best = i;
    }
    return best;
}

static TextEntry *cache_add(TextCache *c, const char *s, int n, uint32_t h)
{
    if (c->free_head < 0) {
        int v = lru_victim(c, NULL, 0);
        if (v < 0)
            return NULL;
        entry_drop(c, v);
    }
    char *key = malloc((size_t)n);
    if (!key)
        return NULL;
    memcpy(key, s, (size_t)n);
    int i = c->free_head;
    TextEntry *e = &c->e[i];
    c->free_head = e->next;
    int *head = &c->bucket[h & (TEXT_BUCKETS - 1)];
    *e = (TextEntry){.key = key, .len = n, .hash = h, .next = *head};
    *head = i;
    c->count++;
    return e;
}

void ren_cache_clear(TextCache *c)
{
    for (int i = 0; i < REN_TEXT_ENTRIES; i++)
        if (c->e[i].key)
            entry_drop(c, i);
}

TextEntry *ren_cache_lookup(TextCache *c, const char *s, int n, int *fresh)
{
    uint32_t h = ren_hash_bytes(s, n, 0);
    TextEntry *e = cache_find(c, s, n, h);
    *fresh = 0;
    if (!e) {
        e = cache_add(c, s, n, h);
        if (!e)
            return NULL;
        *fresh = 1;
    }
    e->used = ++c->clock;
    return e;
}

void ren_cache_charge(TextCache *c, TextEntry *e)
{
    c->bytes += e->bytes;
    while (c->bytes > TEXT_BUDGET) {
        int v = lru_victim(c, e, 1);
        if (v < 0)
            break;
        entry_drop_texture(c, &c->e[v]);
    }
}
