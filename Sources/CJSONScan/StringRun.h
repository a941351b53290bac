// The run of bytes a JSON string reader or writer may pass over without looking at each: shared
// by the string scans (CJSONScan.c) and the object scan (CJSONObjectScan.c).
#ifndef CJSONSCAN_STRING_RUN_H
#define CJSONSCAN_STRING_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Whether `byte` ends a run: a quote, a backslash, a control byte, and with `high` one of 0x80
/// and above.
static inline int marks_byte(uint8_t byte, int high) {
    return byte < 0x20 || (high && byte >= 0x80) || byte == '"' || byte == '\\';
}

#if defined(__SSE2__)
/// The bits of the bytes of `chunk` that `marks_byte` marks, one a byte, lowest first.
static inline unsigned marked_mask(__m128i chunk, int high) {
    // As signed bytes, those below 0x20 and those of 0x80 and above are exactly the ones less
    // than 0x20; without `high`, the negative ones (0x80 and above) are let through.
    __m128i low = _mm_cmplt_epi8(chunk, _mm_set1_epi8(0x20));
    if (!high) low = _mm_and_si128(low, _mm_cmpgt_epi8(chunk, _mm_set1_epi8(-1)));
    const __m128i marked = _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('"')),
                                                          _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\\'))));
    return (unsigned)_mm_movemask_epi8(marked);
}
#endif

#if defined(__x86_64__)
#include <immintrin.h>

/// `marked_mask` of thirty-two bytes.
__attribute__((target("avx2")))
static inline unsigned marked_mask_avx2(__m256i chunk, int high) {
    __m256i low = _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), chunk);
    if (!high) low = _mm256_and_si256(low, _mm256_cmpgt_epi8(chunk, _mm256_set1_epi8(-1)));
    const __m256i marked = _mm256_or_si256(low, _mm256_or_si256(_mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('"')),
                                                                _mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('\\'))));
    return (unsigned)_mm256_movemask_epi8(marked);
}

/// How many leading bytes of `bytes[0..<count]` are unmarked, thirty-two a step, stopping at
/// the first marked byte (`*found` set) or where fewer than thirty-two are left.
__attribute__((target("avx2")))
static size_t unmarked_prefix_avx2(const uint8_t *bytes, size_t count, int high, int *found) {
    size_t index = 0;
    for (; index + 32 <= count; index += 32) {
        const unsigned mask = marked_mask_avx2(_mm256_loadu_si256((const __m256i *)(bytes + index)), high);
        if (mask != 0) {
            *found = 1;
            return index + (size_t)__builtin_ctz(mask);
        }
    }
    return index;
}
#endif

/// The length of the leading run of bytes `marks_byte` does not mark; `high` is a constant at
/// each call, so each caller gets its own loop.
static inline size_t unmarked_prefix(const uint8_t *bytes, size_t count, int high) {
    size_t index = 0;
#if defined(__x86_64__)
    // A token in a record line is hundreds of bytes: past a first step of sixteen, which ends
    // most runs (a name, a short value), thirty-two a step where the processor has AVX2.
    if (count >= 16 + 64) {
        const unsigned mask = marked_mask(_mm_loadu_si128((const __m128i *)bytes), high);
        if (mask != 0) return (size_t)__builtin_ctz(mask);
        index = 16;
        if (__builtin_cpu_supports("avx2")) {
            int found = 0;
            index += unmarked_prefix_avx2(bytes + 16, count - 16, high, &found);
            if (found) return index;
        }
    }
#endif
#if defined(__SSE2__)
    for (; index + 16 <= count; index += 16) {
        const unsigned mask = marked_mask(_mm_loadu_si128((const __m128i *)(bytes + index)), high);
        if (mask != 0) return index + (size_t)__builtin_ctz(mask);
    }
    if (index == count) return count;
    // The last 1-15 bytes in one step: the sixteen bytes that end the input when there are that
    // many (those before `index` are unmarked already), else a copy padded with a byte no call
    // marks.
    size_t start = 0;
    __m128i chunk;
    if (count >= 16) {
        start = count - 16;
        chunk = _mm_loadu_si128((const __m128i *)(bytes + start));
    } else {
        uint8_t padded[16];
        memset(padded, 'a', sizeof padded);
        memcpy(padded, bytes, count);
        chunk = _mm_loadu_si128((const __m128i *)padded);
    }
    const unsigned mask = marked_mask(chunk, high);
    return mask != 0 ? start + (size_t)__builtin_ctz(mask) : count;
#else
    while (index < count && !marks_byte(bytes[index], high)) index += 1;
    return index;
#endif
}

#endif
