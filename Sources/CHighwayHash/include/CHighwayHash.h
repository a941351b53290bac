#ifndef CHIGHWAYHASH_H
#define CHIGHWAYHASH_H

#include <stddef.h>
#include <stdint.h>

/// HighwayHash-64 (Alakuijala, Cox, Wassenberg, "Fast keyed hash/pseudo-random function using
/// SIMD multiply and permute", 2016) of `count` bytes under the 256-bit `key`: with AVX2 when the
/// processor has it, else a portable loop that gives the same value.
uint64_t chighwayhash_64(const uint8_t *bytes, size_t count, const uint64_t key[4]);

/// The same hash by the portable loop only: what the tests compare the AVX2 path with.
uint64_t chighwayhash_64_portable(const uint8_t *bytes, size_t count, const uint64_t key[4]);

#endif
