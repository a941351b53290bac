// Base64url decoding thirty-two characters a step (AVX2) or sixteen (SSSE3): a token's payload
// and signature are hundreds of characters, and a table lookup per character was the largest part
// of splitting a token.
#ifndef CBASE64URL_H
#define CBASE64URL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Decodes whole blocks of sixteen base64url characters (RFC 4648 §5 alphabet, no padding) from
/// the start of `text[0..<count]` into `out`, twelve bytes a block, stopping before the first
/// block that holds a byte outside the alphabet (with AVX2, thirty-two characters a step, then
/// sixteen). Returns the number of characters decoded: a multiple of sixteen, zero where the
/// processor lacks SSSE3. The caller decodes the rest, which also finds any invalid byte; `out`
/// must have room for `count / 16 * 12` bytes.
size_t cbase64url_decode_blocks(const uint8_t *text, size_t count, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
