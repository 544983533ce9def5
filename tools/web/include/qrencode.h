/* qrencode.h - the browser build has no libqrencode (its Debian source is
 * not in the archive this machine reaches): QRcode_encodeString fails with
 * ENOSYS, and the window's Q says that QR codes are left out here (the
 * page's own address is the link to share). */
#ifndef STEPFORMER_WEB_QRENCODE_H
#define STEPFORMER_WEB_QRENCODE_H

#include <errno.h>
#include <stddef.h>

typedef enum { QR_ECLEVEL_L = 0, QR_ECLEVEL_M, QR_ECLEVEL_Q, QR_ECLEVEL_H } QRecLevel;
typedef enum { QR_MODE_NUL = -1, QR_MODE_NUM = 0, QR_MODE_AN, QR_MODE_8, QR_MODE_KANJI } QRencodeMode;
typedef struct {
    int version;
    int width;
    unsigned char *data;
} QRcode;

static inline QRcode *QRcode_encodeString(const char *s, int version, QRecLevel l, QRencodeMode m, int cs)
{
    (void)s, (void)version, (void)l, (void)m, (void)cs;
    errno = ENOSYS;
    return NULL;
}
static inline void QRcode_free(QRcode *q) { (void)q; }

#endif
