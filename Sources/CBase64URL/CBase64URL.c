#include "CBase64URL.h"
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

// Each byte is judged by its two nibbles: it is in the alphabet when no bit is set in both
// lut_lo[low nibble] and lut_hi[high nibble]. Bit 0x80 is set in every lut_lo entry and in the
// lut_hi entries of high nibbles that hold no alphabet byte; bits 0x01...0x20 stand for the high
// nibbles 2...7, set in lut_lo where that low nibble makes a byte outside the alphabet:
//   2: only '-' (0x2D)    3: '0'-'9'    4: 'A'-'O'    5: 'P'-'Z' and '_' (0x5F)
//   6: 'a'-'o'            7: 'p'-'z'
// The sextet is the byte plus an offset chosen by its high nibble, and for '_' by slot 15 (no
// alphabet byte has the high nibble 0xF).
#define LUT_LO (char)0x95, (char)0x81, (char)0x81, (char)0x81, (char)0x81, (char)0x81, (char)0x81, (char)0x81, \
               (char)0x81, (char)0x81, (char)0x83, (char)0xAB, (char)0xAB, (char)0xAA, (char)0xAB, (char)0xA3
#define LUT_HI (char)0x80, (char)0x80, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, \
               (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80
#define LUT_ROLL 0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, -32
// The twelve bytes of each four-byte group's 32-bit lane, last first, to the front.
#define PACK 2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1

__attribute__((target("ssse3")))
static size_t decode_ssse3(const uint8_t *text, size_t count, uint8_t *out) {
    const __m128i lut_lo = _mm_setr_epi8(LUT_LO);
    const __m128i lut_hi = _mm_setr_epi8(LUT_HI);
    const __m128i lut_roll = _mm_setr_epi8(LUT_ROLL);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i underscore = _mm_set1_epi8('_');
    const __m128i pair_weights = _mm_set1_epi32(0x01400140);
    const __m128i quad_weights = _mm_set1_epi32(0x00011000);
    const __m128i pack = _mm_setr_epi8(PACK);
    size_t index = 0;
    while (index + 16 <= count) {
        const __m128i in = _mm_loadu_si128((const __m128i *)(text + index));
        const __m128i hi = _mm_and_si128(_mm_srli_epi32(in, 4), nibble);
        const __m128i lo = _mm_and_si128(in, nibble);
        const __m128i outside = _mm_and_si128(_mm_shuffle_epi8(lut_lo, lo), _mm_shuffle_epi8(lut_hi, hi));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(outside, _mm_setzero_si128())) != 0xFFFF) break;
        const __m128i roll = _mm_shuffle_epi8(lut_roll, _mm_or_si128(hi, _mm_and_si128(_mm_cmpeq_epi8(in, underscore), nibble)));
        const __m128i sextets = _mm_add_epi8(in, roll);
        // a*64+b and c*64+d in each 16-bit lane, then (a*64+b)*4096 + c*64+d in each 32-bit lane,
        // whose low three bytes are the decoded bytes, last first.
        const __m128i quads = _mm_madd_epi16(_mm_maddubs_epi16(sextets, pair_weights), quad_weights);
        const __m128i bytes = _mm_shuffle_epi8(quads, pack);
        _mm_storel_epi64((__m128i *)out, bytes);
        const uint32_t last = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(bytes, 8));
        memcpy(out + 8, &last, 4);
        index += 16;
        out += 12;
    }
    return index;
}

// The same steps on thirty-two characters: each 128-bit lane decodes sixteen as above (the
// shuffles look up within their own lane, so each table is given twice), and the two lanes' twelve
// bytes are stored one after the other.
__attribute__((target("avx2")))
static size_t decode_avx2(const uint8_t *text, size_t count, uint8_t *out) {
    const __m256i lut_lo = _mm256_setr_epi8(LUT_LO, LUT_LO);
    const __m256i lut_hi = _mm256_setr_epi8(LUT_HI, LUT_HI);
    const __m256i lut_roll = _mm256_setr_epi8(LUT_ROLL, LUT_ROLL);
    const __m256i pack = _mm256_setr_epi8(PACK, PACK);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i underscore = _mm256_set1_epi8('_');
    const __m256i pair_weights = _mm256_set1_epi32(0x01400140);
    const __m256i quad_weights = _mm256_set1_epi32(0x00011000);
    size_t index = 0;
    while (index + 32 <= count) {
        const __m256i in = _mm256_loadu_si256((const __m256i *)(text + index));
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi32(in, 4), nibble);
        const __m256i lo = _mm256_and_si256(in, nibble);
        const __m256i outside = _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, lo), _mm256_shuffle_epi8(lut_hi, hi));
        if (!_mm256_testz_si256(outside, outside)) break;
        const __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_or_si256(hi, _mm256_and_si256(_mm256_cmpeq_epi8(in, underscore), nibble)));
        const __m256i sextets = _mm256_add_epi8(in, roll);
        const __m256i quads = _mm256_madd_epi16(_mm256_maddubs_epi16(sextets, pair_weights), quad_weights);
        const __m256i bytes = _mm256_shuffle_epi8(quads, pack);
        // Sixteen bytes of the first lane (the last four overwritten next), then twelve of the
        // second: twenty-four in all, none past the block's own.
        _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(bytes));
        const __m128i second = _mm256_extracti128_si256(bytes, 1);
        _mm_storel_epi64((__m128i *)(out + 12), second);
        const uint32_t last = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(second, 8));
        memcpy(out + 20, &last, 4);
        index += 32;
        out += 24;
    }
    return index;
}
#endif

size_t cbase64url_decode_blocks(const uint8_t *text, size_t count, uint8_t *out) {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx2")) {
        // Thirty-two a step, then one step of sixteen for what is left (or for the half of a
        // step of thirty-two before a byte outside the alphabet).
        const size_t done = decode_avx2(text, count, out);
        return done + decode_ssse3(text + done, count - done, out + done / 4 * 3);
    }
    if (__builtin_cpu_supports("ssse3")) return decode_ssse3(text, count, out);
#endif
    (void)text;
    (void)count;
    (void)out;
    return 0;
}
