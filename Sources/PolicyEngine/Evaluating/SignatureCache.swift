internal import Synchronization

/// Outcomes of signature checks, so a token seen again — one access token in many log records —
/// is verified once, and (through `DecodedTokenCache`) decoded once. Time and claim rules still
/// run for every record; only the cryptography and the parsing are remembered.
///
/// An entry is keyed by the signed bytes and by the identity of the key set that judged them,
/// taken from the keys' material (`KeySetIdentity`), never from how a source is written: two
/// inline sets, or two tenants' policies sharing one cache, never answer for each other, and a
/// rotated set never inherits an old answer. An entry holds only which candidate verified, so
/// a verdict's key freshness is always that of the set at evaluation time. The cache is
/// bounded: when full, it starts over, which costs one extra verification per token and never
/// a wrong answer.
public final class SignatureCache: Sendable {
    /// How often the cache answered.
    public struct Statistics: Sendable, Equatable {
        /// Checks answered from the cache.
        public var hits = 0
        /// Checks that ran the cryptography.
        public var misses = 0

        /// Counts, for tests and summaries.
        public init(hits: Int = 0, misses: Int = 0) {
            self.hits = hits
            self.misses = misses
        }
    }

    struct Key: Hashable {
        let signed: [UInt8]
        let keySet: KeySetIdentity
        /// The hash of the signed bytes, taken once in one block when the token was parsed
        /// (`CompactJWS.signedBytesDigest`): a miss looks the key up and then stores it, and
        /// hashing a kilobyte twice (or a byte at a time, as `[UInt8]` does) costs a noticeable
        /// share of a fast signature check.
        private let digest: Int

        init(_ jws: CompactJWS, keySet: KeySetIdentity) {
            signed = jws.signedBytes
            self.keySet = keySet
            digest = jws.signedBytesDigest ?? Self.digest(of: signed)
        }

        /// The hash of signed bytes, in one block.
        static func digest(of signed: [UInt8]) -> Int {
            var hasher = Hasher()
            signed.withUnsafeBytes { hasher.combine(bytes: $0) }
            return hasher.finalize()
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && lhs.keySet == rhs.keySet && lhs.signed == rhs.signed
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
            hasher.combine(keySet)
        }
    }

    private struct State {
        var entries: [Key: Int?] = [:]
        var statistics = Statistics()
    }

    /// The most entries kept.
    public let capacity: Int
    private let state = Mutex(State())
    /// The signed tokens seen, decoded: a token checked again is not decoded again either.
    let decodedTokens: DecodedTokenCache

    /// A cache of at most `capacity` checks and as many decoded tokens; when full it starts over.
    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
        decodedTokens = DecodedTokenCache(capacity: capacity)
    }

    /// The hits and misses so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// How often a signed token was found already decoded (hits) or had to be decoded (misses).
    public var decodedTokenStatistics: Statistics { decodedTokens.statistics }

    /// The remembered outcome of checking `signed` against `keySet`: `.some(index)` for the
    /// candidate that verified, `.some(nil)` for a signature no candidate verified, nil when not seen.
    func outcome(for key: Key) -> Int?? {
        state.withLock { state in
            let found = state.entries[key]
            if found != nil { state.statistics.hits += 1 } else { state.statistics.misses += 1 }
            return found
        }
    }

    func remember(_ verified: Int?, for key: Key) {
        state.withLock { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = .some(verified)
        }
    }
}
