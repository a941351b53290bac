/// SipHash (Aumasson and Bernstein, "SipHash: a fast short-input PRF"), keyed per process: what
/// the caches that hold tokens place them by.
///
/// A token's text is chosen by whoever writes a log or sends a request, so the tables that keep
/// tokens must not let them choose collisions: a keyed PRF, not a fast unkeyed hash. SipHash-1-3
/// is the variant Swift's `Hasher` uses for its tables; here it reads the text eight bytes at a
/// time in one pass, about half of what `Hasher.combine(bytes:)` costs for a token.
package enum SipHash {
    /// The process's key: random, drawn once.
    package static let processKey = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    /// SipHash-1-3 of `bytes` under the process's key.
    @inline(__always)
    package static func hash13(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        hash(bytes, key: processKey, compressionRounds: 1, finalizationRounds: 3)
    }

    /// SipHash with `compressionRounds` rounds per word and `finalizationRounds` at the end
    /// (SipHash-2-4 is the reference's, whose published vectors the tests check).
    @inline(__always)
    package static func hash(_ bytes: UnsafeRawBufferPointer, key: (UInt64, UInt64), compressionRounds: Int, finalizationRounds: Int) -> UInt64 {
        var state = State(key: key)
        let count = bytes.count, whole = count & ~7
        var last = UInt64(truncatingIfNeeded: count) << 56
        if let base = bytes.baseAddress {
            var word = base
            let end = base + whole
            while word < end {
                state.absorb(UInt64(littleEndian: word.loadUnaligned(as: UInt64.self)), rounds: compressionRounds)
                word += 8
            }
            for offset in 0..<count - whole { last |= UInt64(end.load(fromByteOffset: offset, as: UInt8.self)) << (8 &* UInt64(offset)) }
        }
        state.absorb(last, rounds: compressionRounds)
        return state.finalize(rounds: finalizationRounds)
    }

    private struct State {
        var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64

        init(key: (UInt64, UInt64)) {
            v0 = 0x736F_6D65_7073_6575 ^ key.0
            v1 = 0x646F_7261_6E64_6F6D ^ key.1
            v2 = 0x6C79_6765_6E65_7261 ^ key.0
            v3 = 0x7465_6462_7974_6573 ^ key.1
        }

        @inline(__always)
        mutating func round() {
            v0 &+= v1; v1 = v1.rotated(13); v1 ^= v0; v0 = v0.rotated(32)
            v2 &+= v3; v3 = v3.rotated(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotated(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotated(17); v1 ^= v2; v2 = v2.rotated(32)
        }

        @inline(__always)
        mutating func absorb(_ word: UInt64, rounds: Int) {
            v3 ^= word
            for _ in 0..<rounds { round() }
            v0 ^= word
        }

        @inline(__always)
        mutating func finalize(rounds: Int) -> UInt64 {
            v2 ^= 0xFF
            for _ in 0..<rounds { round() }
            return v0 ^ v1 ^ v2 ^ v3
        }
    }
}

private extension UInt64 {
    @inline(__always)
    func rotated(_ bits: UInt64) -> UInt64 { self << bits | self >> (64 - bits) }
}
