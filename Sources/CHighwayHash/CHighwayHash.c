#include "CHighwayHash.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// The multipliers' starting lanes, and how each round moves bytes between the two 64-bit lanes
// of a 128-bit half: `zipper[i]` is the byte of the pair (lane 0's bytes 0-7, lane 1's 8-15)
// that lands at byte i.
static const uint64_t initial_mul0[4] = {0xdbe6d5d5fe4cce2full, 0xa4093822299f31d0ull, 0x13198a2e03707344ull, 0x243f6a8885a308d3ull};
static const uint64_t initial_mul1[4] = {0x3bd39e10cb0ef593ull, 0xc0acf169b5f18a8cull, 0xbe5466cf34e90c6cull, 0x452821e638d01377ull};
static const uint8_t zipper[16] = {3, 12, 2, 5, 14, 1, 15, 0, 11, 4, 10, 13, 9, 6, 8, 7};

/// The last 1-31 bytes as the final packet: whole 4-byte words at the start, and the last
/// 1-3 bytes (or the last word, when 16 bytes or more remain) at fixed places.
static void remainder_packet(const uint8_t *bytes, size_t count, uint8_t packet[32]) {
    const size_t whole = count & ~(size_t)3, tail = count & 3;
    memset(packet, 0, 32);
    // The whole words in at most two fixed-size copies that may overlap, each a load and a
    // store, where a copy of `whole` bytes was a call into the C library's.
    if (whole >= 16) {
        memcpy(packet, bytes, 16);
        memcpy(packet + whole - 16, bytes + whole - 16, 16);
    } else if (whole >= 8) {
        memcpy(packet, bytes, 8);
        memcpy(packet + whole - 8, bytes + whole - 8, 8);
    } else if (whole == 4) {
        memcpy(packet, bytes, 4);
    }
    if (count & 16) {
        memcpy(packet + 28, bytes + count - 4, 4);
    } else if (tail) {
        const uint8_t *rest = bytes + whole;
        packet[16] = rest[0];
        packet[17] = rest[tail >> 1];
        packet[18] = rest[tail - 1];
    }
}

static inline uint64_t read_le64(const uint8_t *bytes) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; i--) value = value << 8 | bytes[i];
    return value;
}

static inline uint64_t swap_halves(uint64_t value) { return value >> 32 | value << 32; }

// The portable path: four lanes in plain 64-bit arithmetic.
typedef struct { uint64_t v0[4], v1[4], mul0[4], mul1[4]; } portable_state;

static void portable_zipper_add(const uint64_t from[4], uint64_t to[4]) {
    for (int pair = 0; pair < 4; pair += 2) {
        uint8_t source[16], merged[16];
        for (int i = 0; i < 8; i++) {
            source[i] = (uint8_t)(from[pair] >> (8 * i));
            source[8 + i] = (uint8_t)(from[pair + 1] >> (8 * i));
        }
        for (int i = 0; i < 16; i++) merged[i] = source[zipper[i]];
        to[pair] += read_le64(merged);
        to[pair + 1] += read_le64(merged + 8);
    }
}

static void portable_update(portable_state *s, const uint64_t lanes[4]) {
    for (int i = 0; i < 4; i++) {
        s->v1[i] += s->mul0[i] + lanes[i];
        s->mul0[i] ^= (s->v1[i] & 0xffffffffull) * (s->v0[i] >> 32);
        s->v0[i] += s->mul1[i];
        s->mul1[i] ^= (s->v0[i] & 0xffffffffull) * (s->v1[i] >> 32);
    }
    portable_zipper_add(s->v1, s->v0);
    portable_zipper_add(s->v0, s->v1);
}

static void portable_update_bytes(portable_state *s, const uint8_t packet[32]) {
    const uint64_t lanes[4] = {read_le64(packet), read_le64(packet + 8), read_le64(packet + 16), read_le64(packet + 24)};
    portable_update(s, lanes);
}

uint64_t chighwayhash_64_portable(const uint8_t *bytes, size_t count, const uint64_t key[4]) {
    portable_state s;
    for (int i = 0; i < 4; i++) {
        s.mul0[i] = initial_mul0[i];
        s.mul1[i] = initial_mul1[i];
        s.v0[i] = initial_mul0[i] ^ key[i];
        s.v1[i] = initial_mul1[i] ^ swap_halves(key[i]);
    }
    size_t offset = 0;
    for (; offset + 32 <= count; offset += 32) portable_update_bytes(&s, bytes + offset);
    const size_t rest = count - offset;
    if (rest) {
        for (int i = 0; i < 4; i++) {
            s.v0[i] += (uint64_t)rest << 32 | rest;
            const uint32_t low = (uint32_t)s.v1[i], high = (uint32_t)(s.v1[i] >> 32);
            s.v1[i] = (uint64_t)(uint32_t)(high << rest | high >> (32 - rest)) << 32 | (uint32_t)(low << rest | low >> (32 - rest));
        }
        uint8_t packet[32];
        remainder_packet(bytes + offset, rest, packet);
        portable_update_bytes(&s, packet);
    }
    for (int round = 0; round < 4; round++) {
        const uint64_t permuted[4] = {swap_halves(s.v0[2]), swap_halves(s.v0[3]), swap_halves(s.v0[0]), swap_halves(s.v0[1])};
        portable_update(&s, permuted);
    }
    return s.v0[0] + s.v1[0] + s.mul0[0] + s.mul1[0];
}

#if defined(__x86_64__)
// The AVX2 path: each of the state's vectors in one register, a round in about fifteen
// instructions for 32 bytes.
typedef struct { __m256i v0, v1, mul0, mul1; } avx2_state;

__attribute__((target("avx2")))
static inline void avx2_update(avx2_state *s, __m256i lanes) {
    const __m256i zipper_mask = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)zipper));
    s->v1 = _mm256_add_epi64(s->v1, _mm256_add_epi64(s->mul0, lanes));
    s->mul0 = _mm256_xor_si256(s->mul0, _mm256_mul_epu32(s->v1, _mm256_srli_epi64(s->v0, 32)));
    s->v0 = _mm256_add_epi64(s->v0, s->mul1);
    s->mul1 = _mm256_xor_si256(s->mul1, _mm256_mul_epu32(s->v0, _mm256_srli_epi64(s->v1, 32)));
    s->v0 = _mm256_add_epi64(s->v0, _mm256_shuffle_epi8(s->v1, zipper_mask));
    s->v1 = _mm256_add_epi64(s->v1, _mm256_shuffle_epi8(s->v0, zipper_mask));
}

__attribute__((target("avx2")))
static uint64_t chighwayhash_64_avx2(const uint8_t *bytes, size_t count, const uint64_t key[4]) {
    const __m256i keys = _mm256_loadu_si256((const __m256i *)key);
    avx2_state s;
    s.mul0 = _mm256_loadu_si256((const __m256i *)initial_mul0);
    s.mul1 = _mm256_loadu_si256((const __m256i *)initial_mul1);
    s.v0 = _mm256_xor_si256(s.mul0, keys);
    s.v1 = _mm256_xor_si256(s.mul1, _mm256_shuffle_epi32(keys, _MM_SHUFFLE(2, 3, 0, 1)));
    size_t offset = 0;
    for (; offset + 32 <= count; offset += 32) avx2_update(&s, _mm256_loadu_si256((const __m256i *)(bytes + offset)));
    const size_t rest = count - offset;
    if (rest) {
        s.v0 = _mm256_add_epi64(s.v0, _mm256_set1_epi64x((long long)((uint64_t)rest << 32 | rest)));
        const __m128i left = _mm_cvtsi32_si128((int)rest), right = _mm_cvtsi32_si128((int)(32 - rest));
        s.v1 = _mm256_or_si256(_mm256_sll_epi32(s.v1, left), _mm256_srl_epi32(s.v1, right));
        uint8_t packet[32];
        remainder_packet(bytes + offset, rest, packet);
        avx2_update(&s, _mm256_loadu_si256((const __m256i *)packet));
    }
    for (int round = 0; round < 4; round++) {
        // Lanes 2, 3, 0, 1 of v0, each with its 32-bit halves swapped.
        const __m256i permuted = _mm256_permutevar8x32_epi32(s.v0, _mm256_setr_epi32(5, 4, 7, 6, 1, 0, 3, 2));
        avx2_update(&s, permuted);
    }
    const __m256i sum = _mm256_add_epi64(_mm256_add_epi64(s.v0, s.v1), _mm256_add_epi64(s.mul0, s.mul1));
    return (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(sum));
}
#endif

uint64_t chighwayhash_64(const uint8_t *bytes, size_t count, const uint64_t key[4]) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) return chighwayhash_64_avx2(bytes, count, key);
#endif
    return chighwayhash_64_portable(bytes, count, key);
}
