// The innermost loops of reading and writing JSON strings, sixteen bytes a step: token logs are long strings
// of printable ASCII (a token is hundreds of bytes), and a byte-at-a-time or word-at-a-time scan
// of them was the largest part of reading a record.
#ifndef CJSONSCAN_H
#define CJSONSCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The number of leading bytes of `bytes[0..<count]` that are printable ASCII other than the
/// quote and the backslash (0x20...0x7F but 0x22 and 0x5C): the offset of the first byte a JSON
/// string reader must look at, or `count` when there is none.
size_t cjsonscan_plain_ascii_prefix(const uint8_t *bytes, size_t count);

/// The number of leading bytes of `bytes[0..<count]` a JSON writer copies as they are: any but
/// the quote, the backslash and control bytes (below 0x20). The offset of the first byte to
/// escape, or `count` when there is none.
size_t cjsonscan_unescaped_prefix(const uint8_t *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
