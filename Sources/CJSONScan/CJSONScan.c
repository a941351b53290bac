#include "CJSONScan.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Whether `byte` ends a run: a quote, a backslash, a control byte, and with `high` one of 0x80
/// and above.
static inline int marks_byte(uint8_t byte, int high) {
    return byte < 0x20 || (high && byte >= 0x80) || byte == '"' || byte == '\\';
}

/// The length of the leading run of bytes `marks_byte` does not mark; `high` is a constant at
/// each call, so each caller gets its own loop.
static inline size_t unmarked_prefix(const uint8_t *bytes, size_t count, int high) {
    size_t index = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    const __m128i minus_one = _mm_set1_epi8(-1);
    while (index + 16 <= count) {
        const __m128i chunk = _mm_loadu_si128((const __m128i *)(bytes + index));
        // As signed bytes, those below 0x20 and those of 0x80 and above are exactly the ones
        // less than 0x20; without `high`, the negative ones (0x80 and above) are let through.
        __m128i low = _mm_cmplt_epi8(chunk, space);
        if (!high) low = _mm_and_si128(low, _mm_cmpgt_epi8(chunk, minus_one));
        const __m128i marked = _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
        const int mask = _mm_movemask_epi8(marked);
        if (mask != 0) return index + (size_t)__builtin_ctz((unsigned)mask);
        index += 16;
    }
    if (index < count) {
        // The last 1–15 bytes in one step: the sixteen bytes that end the input when there are
        // that many (those before `index` are unmarked already), else a copy padded with a byte
        // no call marks.
        __m128i chunk;
        size_t start;
        if (count >= 16) {
            start = count - 16;
            chunk = _mm_loadu_si128((const __m128i *)(bytes + start));
        } else {
            uint8_t padded[16];
            memset(padded, 'a', sizeof padded);
            memcpy(padded, bytes, count);
            start = 0;
            chunk = _mm_loadu_si128((const __m128i *)padded);
        }
        __m128i low = _mm_cmplt_epi8(chunk, space);
        if (!high) low = _mm_and_si128(low, _mm_cmpgt_epi8(chunk, minus_one));
        const __m128i marked = _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
        const int mask = _mm_movemask_epi8(marked);
        return mask != 0 ? start + (size_t)__builtin_ctz((unsigned)mask) : count;
    }
    return index;
#endif
    while (index < count && !marks_byte(bytes[index], high)) index += 1;
    return index;
}

size_t cjsonscan_plain_ascii_prefix(const uint8_t *bytes, size_t count) {
    return unmarked_prefix(bytes, count, 1);
}

size_t cjsonscan_unescaped_prefix(const uint8_t *bytes, size_t count) {
    return unmarked_prefix(bytes, count, 0);
}
