#ifndef POLICY_ENGINE_CZLIB_SHIM_H
#define POLICY_ENGINE_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro; Swift cannot call it. 15 + 32: zlib or gzip headers, detected. */
static inline int CZlib_inflateInit(z_stream *stream) {
    return inflateInit2(stream, 15 + 32);
}
#endif
