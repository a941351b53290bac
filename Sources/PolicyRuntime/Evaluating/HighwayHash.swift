internal import CHighwayHash

/// HighwayHash-64 (Alakuijala, Cox and Wassenberg, 2016), keyed per process: what the caches
/// that hold tokens place them by.
///
/// A token's text is chosen by whoever writes a log or sends a request, so the tables that keep
/// tokens must not let them choose collisions: a keyed pseudo-random function, not a fast
/// unkeyed hash. HighwayHash is one built for this, reading 32 bytes a step with AVX2 (a
/// portable loop gives the same values elsewhere): for a 330-byte HS256 token about a third of
/// the instructions of the SipHash-1-3 it replaced (317 against 883), for an RS256 one a quarter.
package enum HighwayHash {
    /// A 256-bit key.
    package struct Key: Sendable {
        fileprivate var words: (UInt64, UInt64, UInt64, UInt64)

        package init(_ first: UInt64, _ second: UInt64, _ third: UInt64, _ fourth: UInt64) {
            words = (first, second, third, fourth)
        }

        /// A key drawn from the system's random source.
        static func random() -> Key {
            Key(.random(in: .min ... .max), .random(in: .min ... .max), .random(in: .min ... .max), .random(in: .min ... .max))
        }
    }

    /// How the hash is computed; both give the same value.
    package enum Path: Sendable {
        /// AVX2 where the processor has it, else the portable loop.
        case fastest
        /// Plain 64-bit arithmetic.
        case portable
    }

    /// The process's key: random, drawn once.
    package static let processKey = Key.random()

    /// The hash of `bytes` under the process's key.
    @inline(__always)
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        hash(bytes, key: processKey)
    }

    /// The hash of `bytes` under `key`, computed along `path`.
    package static func hash(_ bytes: UnsafeRawBufferPointer, key: Key, path: Path = .fastest) -> UInt64 {
        var words = key.words
        return withUnsafeBytes(of: &words) { key in
            let keyWords = key.assumingMemoryBound(to: UInt64.self).baseAddress!
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            switch path {
            case .fastest: return chighwayhash_64(base, bytes.count, keyWords)
            case .portable: return chighwayhash_64_portable(base, bytes.count, keyWords)
            }
        }
    }
}
