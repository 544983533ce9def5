/* safetensors.c - what every safetensors file starts with (safetensors.h):
 * the byte source, the header and its checks, shared by the checkpoint
 * loader and the MarianMT folder reader. */
#include "safetensors.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int sft_read(const SftSrc *s, size_t off, void *dst, size_t n, TfErr *err)
{
    if (off > s->size || n > s->size - off)
        return tf_fail(err, "%s: read past the end of the file", s->name);
    if (s->mem) {
        memcpy(dst, s->mem + off, n);
        return 0;
    }
    if (fseeko(s->f, (off_t)off, SEEK_SET) != 0 || fread(dst, 1, n, s->f) != n)
        return tf_fail(err, "%s: read failed: %s", s->name,
                       ferror(s->f) ? strerror(errno) : "unexpected end of file");
    return 0;
}

/* safetensors pads the header with spaces only. */
static int only_spaces(const char *p, const char *end)
{
    for (; p && p < end; p++)
        if (*p != ' ')
            return 0;
    return 1;
}

/* Does JSON text hold a \u0000 escape inside a string (which cJSON would
 * decode into a NUL, silently cutting the string short)? Escaped
 * backslashes are skipped, so "\\u0000" (a backslash, then u0000) is
 * one level of escaping less and is found when that inner text is parsed. */
int sft_has_nul_escape(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
            return 1;
        i++; /* skip the escaped character */
    }
    return 0;
}

/* The header every safetensors file starts with: its 8-byte length checked
 * against the file and SFT_MAX_HEADER before anything is allocated, a JSON
 * object padded with spaces only, no NUL in its strings. *data_at is where
 * the tensor data begins. NULL (err set) when any of it fails. */
cJSON *sft_header_read(const SftSrc *src, size_t *data_at, TfErr *err)
{
    const char *name = src->name;
    if (src->size < 8) {
        tf_fail(err, "%s: file is %zu bytes, too short for a safetensors header", name, src->size);
        return NULL;
    }
    unsigned char lenb[8];
    if (sft_read(src, 0, lenb, 8, err))
        return NULL;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | lenb[i];
    if (hlen == 0 || hlen > src->size - 8) {
        tf_fail(err, "%s: header length %llu does not fit in the file (%zu bytes)", name,
                (unsigned long long)hlen, src->size);
        return NULL;
    }
    if (hlen > SFT_MAX_HEADER) {
        tf_fail(err, "%s: header of %llu bytes is larger than the %u allowed", name,
                (unsigned long long)hlen, SFT_MAX_HEADER);
        return NULL;
    }
    char *text = malloc((size_t)hlen + 1);
    if (!text) {
        tf_fail(err, "%s: out of memory for the header", name);
        return NULL;
    }
    cJSON *hdr = NULL;
    if (sft_read(src, 8, text, (size_t)hlen, err))
        goto fail;
    text[hlen] = 0;
    const char *end = NULL;
    hdr = cJSON_ParseWithLengthOpts(text, (size_t)hlen, &end, 0);
    if (!cJSON_IsObject(hdr)) {
        tf_fail(err, "%s: header is not a valid JSON object", name);
        goto fail;
    }
    if (!only_spaces(end, text + hlen)) {
        tf_fail(err, "%s: bytes after the header's JSON object (only spaces may pad it)", name);
        goto fail;
    }
    if (sft_has_nul_escape(text, (size_t)hlen)) {
        tf_fail(err, "%s: a string in the header holds a NUL character (\\u0000)", name);
        goto fail;
    }
    free(text);
    *data_at = 8 + (size_t)hlen;
    return hdr;
fail:
    cJSON_Delete(hdr);
    free(text);
    return NULL;
}
