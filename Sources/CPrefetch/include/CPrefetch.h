#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Asks the processor to bring the cache line that holds `address` in for reading, without
/// waiting for it: a hint, never a fault, whatever the address.
static inline void cprefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
