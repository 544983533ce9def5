/* pickle.h - PyTorch's pytorch_model.bin (a zip holding a pickle), read
 * without executing anything.
 *
 * Only what torch.save(state_dict) writes is understood: the opcodes PROTO,
 * FRAME, GLOBAL, STACK_GLOBAL, MARK, the memo (BINPUT, LONG_BINPUT, MEMOIZE,
 * BINGET, LONG_BINGET), EMPTY_TUPLE/DICT/LIST, TUPLE, TUPLE1-3, strings
 * (BINUNICODE, SHORT_BINUNICODE, BINUNICODE8), integers (BININT, BININT1,
 * BININT2, LONG1), NONE, NEWTRUE, NEWFALSE, BINPERSID, REDUCE, SETITEM(S),
 * APPEND(S), BUILD, STOP; and only the globals collections.OrderedDict,
 * torch._utils._rebuild_tensor_v2 and torch.{Float,Half,BFloat16}Storage.
 * Anything else is refused with a one-line error naming it. */
#ifndef TF_PICKLE_H
#define TF_PICKLE_H
#include <stddef.h>

#include "err.h"

enum { PK_F32 = 0, PK_F16 = 1, PK_BF16 = 2 };
#define PK_MAX_DIMS 8

typedef struct PkTensor {
    char *name;     /* state-dict key */
    char *storage;  /* the storage's key: data/<storage> in the zip */
    int dtype;      /* PK_F32 / PK_F16 / PK_BF16 */
    long long offset; /* in elements, into the storage */
    long long storage_numel;
    int nd;
    long long shape[PK_MAX_DIMS];
    int contiguous; /* row-major strides */
} PkTensor;

typedef struct PkTable {
    PkTensor *t;
    int n;
} PkTable;

/* Interpret a pickle (the bytes of data.pkl) into the tensors of the
 * state dict it holds. name names the input in errors. */
int pk_parse(const unsigned char *buf, size_t len, const char *name, PkTable *out, TfErr *err);
void pk_table_free(PkTable *t);
const PkTensor *pk_find(const PkTable *t, const char *name);

/* A pytorch_model.bin: its table and the open zip. */
typedef struct PtFile {
    void *zip;
    char prefix[256]; /* "archive/" - the folder holding data.pkl */
    const char *path;
    PkTable tab;
} PtFile;

int pt_open(PtFile *f, const char *path, TfErr *err);
void pt_close(PtFile *f);
/* Read n elements of tensor t as floats. */
int pt_read(PtFile *f, const PkTensor *t, float *out, size_t n, TfErr *err);

/* IEEE half and bfloat16 to float (tensors stored as F16 / BF16). */
float tf_f16_to_f32(unsigned short h);
float tf_bf16_to_f32(unsigned short h);

#endif
