/* scene_code.c - scene codes and their links (scene_code.h). */
#include "scene_code.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "file.h"
#include "paths.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64_value(int c)
{
    const char *p = c ? strchr(B64, c) : NULL;
    return p ? (int)(p - B64) : -1;
}

/* base64url of in[0..n) into out (no padding): its length, or -1 */
static int b64_encode(const unsigned char *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        int k = n - i >= 3 ? 4 : (int)(n - i) + 1;
        if (o + (size_t)k + 1 > cap)
            return -1;
        for (int j = 0; j < k; j++)
            out[o++] = B64[(v >> (18 - 6 * j)) & 63];
    }
    out[o] = 0;
    return (int)o;
}

/* base64url text[0..n) into out: the byte count, or -1 when it is not */
static int b64_decode(const char *text, size_t n, unsigned char *out, size_t cap)
{
    if (n % 4 == 1)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int k = n - i >= 4 ? 4 : (int)(n - i);
        unsigned v = 0;
        for (int j = 0; j < 4; j++) {
            int d = j < k ? b64_value((unsigned char)text[i + j]) : 0;
            if (d < 0)
                return -1;
            v = v << 6 | (unsigned)d;
        }
        for (int j = 0; j < k - 1; j++) {
            if (o + 1 >= cap)
                return -1;
            out[o++] = (unsigned char)(v >> (16 - 8 * j));
        }
    }
    out[o] = 0;
    return (int)o;
}

/* code without the spaces around it: start and length */
static const char *trimmed(const char *s, size_t *n)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t k = strlen(s);
    while (k && isspace((unsigned char)s[k - 1]))
        k--;
    *n = k;
    return s;
}

int scene_code_like(const char *text)
{
    size_t n;
    const char *s = trimmed(text ? text : "", &n);
    if (n < 4 || s[0] != 'S' || s[1] != 'F' || !isdigit((unsigned char)s[2]))
        return 0;
    size_t i = 2;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    if (i >= n || s[i] != '-')
        return 0;
    for (size_t j = i + 1; j < n; j++)
        if (b64_value((unsigned char)s[j]) < 0)
            return 0;
    return 1;
}

int scene_code_write(const SceneLink *l, char *buf, size_t cap)
{
    char frag[SCENE_CODE_MAX];
    int n = link_format(l, frag, sizeof frag);
    int head = snprintf(buf, cap, "SF%d-", SCENE_VERSION);
    if (n < 0 || head < 0 || (size_t)head >= cap)
        return -1;
    int b = b64_encode((const unsigned char *)frag, (size_t)n, buf + head, cap - (size_t)head);
    return b < 0 ? -1 : head + b;
}

int scene_code_read(const char *code, SceneLink *l, TfErr *err)
{
    memset(l, 0, sizeof *l);
    size_t n;
    const char *s = trimmed(code ? code : "", &n);
    if (n < 3 || s[0] != 'S' || s[1] != 'F' || !isdigit((unsigned char)s[2]))
        return tf_fail(err, "scene: '%.24s' is not a scene code (they start with SF%d-)", s, SCENE_VERSION);
    char *end;
    long v = strtol(s + 2, &end, 10);
    if (*end != '-' || end > s + n)
        return tf_fail(err, "scene: '%.24s' is not a scene code (they start with SF%d-)", s, SCENE_VERSION);
    if (v != SCENE_VERSION)
        return tf_fail(err, "scene: this code is of version %ld; this program reads version %d (a newer "
                            "Stepformer made it?)", v, SCENE_VERSION);
    const char *body = end + 1;
    size_t bn = n - (size_t)(body - s);
    if (bn == 0)
        return tf_fail(err, "scene: '%.24s' is not a scene code: nothing follows SF%d-", s, SCENE_VERSION);
    unsigned char frag[SCENE_CODE_MAX];
    if (bn * 3 / 4 + 4 > sizeof frag)
        return tf_fail(err, "scene: the code is too long (%zu characters)", n);
    int fn = b64_decode(body, bn, frag, sizeof frag);
    if (fn < 0)
        return tf_fail(err, "scene: the code is broken (a character is missing or not of the code); copy it again");
    if (memchr(frag, 0, (size_t)fn))
        return tf_fail(err, "scene: the code is broken (it holds a NUL byte); copy it again");
    return link_parse((const char *)frag, l, err);
}

int scene_link_write(const SceneLink *l, const char *base, char *buf, size_t cap)
{
    if (!base || !*base)
        base = "index.html";
    int head = snprintf(buf, cap, "%s#", base);
    if (head < 0 || (size_t)head >= cap)
        return -1;
    int n = link_format(l, buf + head, cap - (size_t)head);
    return n < 0 ? -1 : head + n;
}

/* ---- the model ---- */

/* The SHA-256 of a file's bytes, as 64 hex digits. */
static int file_sha256(const char *path, char hex[65], TfErr *err)
{
    off_t size;
    FILE *f = tf_fopen_regular(path, &size, err);
    if (!f)
        return -1;
    struct sha256_ctx c;
    sha256_init(&c);
    static unsigned char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sha256_update(&c, n, chunk);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return tf_fail(err, "%s: a read failed", path);
    unsigned char d[SHA256_DIGEST_SIZE];
    sha256_digest(&c, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return 0;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The bundled model file of a name ("en2zh"), where it can be read. */
static const char *bundled(const char *name, char *buf, size_t cap)
{
    char rel[256];
    snprintf(rel, sizeof rel, "assets/models/%s.safetensors", name);
    paths_data(rel, buf, cap);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

int scene_model_name(const char *path, char *buf, size_t cap, TfErr *err)
{
    const char *b = base_name(path);
    size_t bl = strlen(b);
    const char *ext = ".safetensors";
    size_t el = strlen(ext);
    if (bl > el && strcmp(b + bl - el, ext) == 0 && bl - el < 64) {
        char name[64], at[PATH_MAX], real_a[PATH_MAX], real_b[PATH_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(bl - el), b);
        if (bundled(name, at, sizeof at) && realpath(at, real_a) && realpath(path, real_b) &&
            strcmp(real_a, real_b) == 0) {
            snprintf(buf, cap, "%s", name);
            return 0;
        }
    }
    char hex[65];
    if (file_sha256(path, hex, err))
        return -1;
    if (strchr(b, '~') || bl > 60)
        return tf_fail(err, "scene: the model's file name '%.40s' cannot go into a scene (a '~' in it, or too long)", b);
    snprintf(buf, cap, "%s~%.12s", b, hex);
    return 0;
}

int scene_model_find(const char *name, char *buf, size_t cap, TfErr *err)
{
    const char *tilde = strchr(name, '~');
    if (!tilde) {
        if (bundled(name, buf, cap))
            return 0;
        return tf_fail(err, "scene: it needs the bundled model '%s' (assets/models/%s.safetensors), which this "
                            "installation lacks", name, name);
    }
    char file[128];
    snprintf(file, sizeof file, "%.*s", (int)(tilde - name), name);
    const char *sha = tilde + 1;
    char bundled_path[PATH_MAX], rel[200];
    snprintf(rel, sizeof rel, "assets/models/%s", file);
    const char *places[2] = {file, paths_data(rel, bundled_path, sizeof bundled_path)};
    for (int i = 0; i < 2; i++) {
        char hex[65];
        TfErr e2;
        if (access(places[i], R_OK) == 0 && file_sha256(places[i], hex, &e2) == 0 &&
            strncmp(hex, sha, strlen(sha)) == 0) {
            snprintf(buf, cap, "%s", places[i]);
            return 0;
        }
    }
    return tf_fail(err, "scene: it needs the model file '%s' (SHA-256 %s…), which is not in the current folder "
                        "(copy the file here, then open the scene again)", file, sha);
}
