/* model_open.h - the one door to a model on disk.
 *
 * The window, the command line and the lessons open whatever path they are
 * given through tf_model_open: a Stepformer safetensors file
 * (checkpoint.h), a MarianMT / OPUS-MT folder with its weights in
 * model.safetensors or in PyTorch's pytorch_model.bin (marian.h), or one
 * file of such a folder (config.json, vocab.json, the weights, ...), which
 * stands for its folder. Errors are those of the reader chosen: one line
 * naming the file and the reason. */
#ifndef TF_MODEL_OPEN_H
#define TF_MODEL_OPEN_H

#include <stddef.h>

#include "err.h"
#include "model.h"

/* What tf_model_open reads for path: path itself, or (a file of a MarianMT
 * folder) the folder, written into buf of cap bytes. */
const char *tf_model_source(const char *path, char *buf, size_t cap);

/* Load the model that path names into m. On failure err holds one line
 * and m is left empty. */
int tf_model_open(const char *path, TfModel *m, TfErr *err);

#endif
