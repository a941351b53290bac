#include "CJSONScan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Whether `byte` ends a plain run: a quote, a backslash, a control byte or one of 0x80 and above.
static inline int marks_byte(uint8_t byte) {
    return byte < 0x20 || byte >= 0x80 || byte == '"' || byte == '\\';
}

size_t cjsonscan_plain_ascii_prefix(const uint8_t *bytes, size_t count) {
    size_t index = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (index + 16 <= count) {
        const __m128i chunk = _mm_loadu_si128((const __m128i *)(bytes + index));
        // As signed bytes, those below 0x20 and those of 0x80 and above are exactly the ones
        // less than 0x20.
        const __m128i marked = _mm_or_si128(_mm_cmplt_epi8(chunk, space),
                                            _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
        const int mask = _mm_movemask_epi8(marked);
        if (mask != 0) return index + (size_t)__builtin_ctz((unsigned)mask);
        index += 16;
    }
#endif
    while (index < count && !marks_byte(bytes[index])) index += 1;
    return index;
}

size_t cjsonscan_unescaped_prefix(const uint8_t *bytes, size_t count) {
    size_t index = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    const __m128i minusOne = _mm_set1_epi8(-1);
    while (index + 16 <= count) {
        const __m128i chunk = _mm_loadu_si128((const __m128i *)(bytes + index));
        // Control bytes: below 0x20 and not negative as signed bytes (those are 0x80 and above).
        const __m128i control = _mm_and_si128(_mm_cmplt_epi8(chunk, space), _mm_cmpgt_epi8(chunk, minusOne));
        const __m128i marked = _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
        const int mask = _mm_movemask_epi8(marked);
        if (mask != 0) return index + (size_t)__builtin_ctz((unsigned)mask);
        index += 16;
    }
#endif
    while (index < count && bytes[index] >= 0x20 && bytes[index] != '"' && bytes[index] != '\\') index += 1;
    return index;
}
