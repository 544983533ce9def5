/* scene_code.h - scene codes: one short line of text for everything a
 * teacher shows (link.h's fields, the model included), to paste into a chat,
 * a slide or the Source line, and the browser link that opens the same.
 *
 *   SF1-bW9kZWw9ZW4yemgmc3JjPWklMjBsb3ZlJTIwY2hpbmEmc3RhZ2U9...
 *
 * "SF" and a version number, '-', then the link's fragment in base64url
 * (RFC 4648 §5, no padding). A code of another version, or one that is not
 * base64url, or whose fragment link_parse refuses, is an error of one line. */
#ifndef APP_SCENE_CODE_H
#define APP_SCENE_CODE_H

#include <stddef.h>

#include "err.h"
#include "link.h"

#define SCENE_VERSION 1
#define SCENE_CODE_MAX 4096

/* Does text look like a scene code ("SF<digits>-...", spaces around it
 * allowed)? For the Source line: a pasted code opens the scene. */
int scene_code_like(const char *text);

/* The code of l into buf. Returns its length, or -1 when cap is too small. */
int scene_code_write(const SceneLink *l, char *buf, size_t cap);

/* A code (spaces around it are skipped) into l: 0, or -1 with err. */
int scene_code_read(const char *code, SceneLink *l, TfErr *err);

/* The browser link of l: base (a page address, e.g. ".../index.html";
 * NULL or "" for "index.html") + '#' + the fragment. Returns its length,
 * or -1. */
int scene_link_write(const SceneLink *l, const char *base, char *buf, size_t cap);

/* How a scene names the model file at path: the bundled model's name
 * ("en2zh") when path is one of the bundled models, else
 * "BASENAME~SHA12" (the first 12 hex digits of the file's SHA-256).
 * 0, or -1 with err when the file cannot be read. */
int scene_model_name(const char *path, char *buf, size_t cap, TfErr *err);

/* The file a scene's model name stands for: a bundled model, or a file of
 * that name and hash in the current folder or among the bundled models.
 * 0 with its path in buf, or -1 with err saying which file is missing. */
int scene_model_find(const char *name, char *buf, size_t cap, TfErr *err);

#endif
