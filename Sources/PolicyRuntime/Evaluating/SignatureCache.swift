internal import Synchronization
@_spi(RuleAuthoring) package import PolicyJOSE

/// Outcomes of signature checks, so a token seen again — one access token in many log records,
/// a session's every request — is verified once, and (through `DecodedTokenCache`) decoded
/// once. Time and claim rules still run for every record; only the cryptography and the
/// parsing are remembered.
///
/// An entry is keyed by the SHA-256 of the signed bytes (`ContentDigest`) and by the identity
/// of the key set that judged them, taken from the keys' material (`KeySetIdentity`), never
/// from how a source is written: two inline sets, or two tenants' policies sharing one cache,
/// never answer for each other, and a rotated set never inherits an old answer. An entry holds
/// only which candidate verified, so a verdict's key freshness is always that of the set at
/// evaluation time.
///
/// The cache is bounded by memory, `memoryLimit` bytes (64 MiB by default), and evicts entry
/// by entry (`ClockCache`: CLOCK with TinyLFU admission), so a log or a load with more distinct
/// tokens than it holds still finds the tokens that come back: a full cache costs a
/// verification per token it does not hold, never a wrong answer. Seven eighths of the memory
/// remember checks and one eighth keeps decoded tokens: a remembered check takes about 135
/// bytes (two digests, its slot, its shares of the index and of the frequency sketch) and
/// spares an RS256 verification (about 290,000 instructions); a decoded token takes about
/// 3.5 KiB and spares a decoding (about 20,000). Checks are worth some 400 times more a byte,
/// and the decoded share is for the hottest tokens.
public final class SignatureCache: Sendable {
    /// How often the cache answered, and what it gave up.
    public struct Statistics: Sendable, Equatable {
        /// Checks answered from the cache.
        public var hits = 0
        /// Checks that ran the cryptography.
        public var misses = 0
        /// Entries removed to make room for others.
        public var evictions = 0
        /// Entries not kept because the cache was full of entries asked for more often.
        public var declined = 0

        /// Counts, for tests and summaries.
        public init(hits: Int = 0, misses: Int = 0, evictions: Int = 0, declined: Int = 0) {
            self.hits = hits
            self.misses = misses
            self.evictions = evictions
            self.declined = declined
        }

        /// The share of lookups the cache answered, from 0 to 1; nil before the first lookup.
        public var hitRate: Double? {
            hits + misses == 0 ? nil : Double(hits) / Double(hits + misses)
        }
    }

    struct Key: SketchedKey {
        let signed: ContentDigest
        let keySet: KeySetIdentity

        /// The key of checking `jws` against `keySet`; `digest` is its signed bytes' SHA-256 if
        /// already taken (`DecodedToken.signedBytesDigest`).
        init(_ jws: CompactJWS, digest: ContentDigest? = nil, keySet: KeySetIdentity) {
            signed = digest ?? ContentDigest(of: jws.signedBytes)
            self.keySet = keySet
        }

        var sketchHash: UInt64 { signed.sketchHash }

        func hash(into hasher: inout Hasher) {
            hasher.combine(signed)
        }
    }

    /// The memory a cache takes unless told otherwise: 64 MiB, which remembers the checks of
    /// about 400,000 distinct tokens and keeps the 2,000 to 3,000 most asked-for decoded — the
    /// live tokens of a busy service over a token's lifetime — beside a server process that
    /// takes some 50 MiB without it.
    public static let defaultMemoryLimit = 64 << 20

    /// The sizes the command line and the serve configuration accept, 1 MiB to 64 GiB: below,
    /// the cache holds too little to matter; above, the setting is a typo.
    package static let settableSizes = (1 << 20)...(64 << 30)

    /// The most memory the cache takes, in bytes: checks and decoded tokens together.
    public let memoryLimit: Int
    private let state: Mutex<ClockCache<Key, Int?>>
    /// The signed tokens seen, decoded: a token checked again is not decoded again either.
    let decodedTokens: DecodedTokenCache

    /// The cache every evaluation uses unless given another, or nil: one a process, of
    /// `defaultMemoryLimit` bytes at most, taken only as tokens arrive. An entry answers only
    /// for the same signed bytes under the same key material, so policies sharing it never
    /// answer for each other.
    public static let shared = SignatureCache()

    /// A cache that takes at most `memoryLimit` bytes (at least 64 KiB), evicting one entry
    /// at a time when full.
    public init(memoryLimit: Int = SignatureCache.defaultMemoryLimit) {
        self.memoryLimit = max(64 << 10, memoryLimit)
        let decodedShare = self.memoryLimit / 8
        state = Mutex(ClockCache(budget: self.memoryLimit - decodedShare, typicalCost: 0))
        decodedTokens = DecodedTokenCache(budget: decodedShare)
    }

    /// The hits, misses, evictions and declined entries so far.
    public var statistics: Statistics { state.withLock { $0.counts } }

    /// How often a signed token was found already decoded (hits) or had to be decoded (misses).
    public var decodedTokenStatistics: Statistics { decodedTokens.statistics }

    /// The memory the cache takes now, in bytes, as it costs its entries: never above
    /// `memoryLimit`.
    public var memoryUsed: Int { state.withLock { $0.bytes } + decodedTokens.bytes }

    /// The number of checks remembered now.
    public var count: Int { state.withLock { $0.count } }

    /// The remembered outcome of checking `signed` against `keySet`: `.some(index)` for the
    /// candidate that verified, `.some(nil)` for a signature no candidate verified, nil when not seen.
    func outcome(for key: Key) -> Int?? {
        state.withLock { $0.value(for: key) }
    }

    /// Whether the check of `token`'s signed bytes under `keys` (in the order a policy lists
    /// them) is remembered, without counting as a lookup: for tests of who shares the cache.
    package func remembers(_ token: String, keys: [JWK]) throws -> Bool {
        let key = try Key(CompactJWS(token), keySet: KeySetIdentity(keys: keys))
        return state.withLock { $0.peek(key) } != nil
    }

    func remember(_ verified: Int?, for key: Key) {
        state.withLock { $0.offer(verified, for: key, ownCost: 0) }
    }
}
