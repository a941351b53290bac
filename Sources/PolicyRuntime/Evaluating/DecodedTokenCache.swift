internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif
@_spi(RuleAuthoring) import PolicyJOSE

/// Tokens decoded once: a token presented again (a session's every request, one access token in
/// many log records) is not base64-decoded and parsed again; its time and claim rules still run
/// on every evaluation.
///
/// Only signed tokens are kept: their decoding depends on nothing but their text and the
/// limits, which make the key, so a token decoded under one policy's limits never answers for
/// another's. An encrypted token's decoding depends on the decryption keys and is not kept.
/// Entries are immutable `DecodedToken`s shared by the evaluations that find them.
///
/// A token is kept only from its second decoding on, so a log of unique tokens does not fill
/// memory with trees it never reads again: the first leaves a count in the frequency sketch of
/// `ClockCache`, which bounds the memory (a share of the signature cache's) and evicts one
/// token at a time. A full cache costs a decoding per token it does not hold, never a wrong
/// answer.
final class DecodedTokenCache: Sendable {
    struct Key: SketchedKey {
        let token: TokenText
        let limits: TokenLimits
        /// The hash of the token's bytes, taken once in one block, for the table and the sketch.
        let digest: Int

        /// The key of `token` under `limits`; `digest` is `Key.digest(of:)` of its bytes when
        /// the caller took it already (a batch looks the token up among its verdicts first).
        init(token: TokenText, limits: TokenLimits, digest: Int? = nil) {
            self.token = token
            self.limits = limits
            self.digest = digest ?? token.withUTF8 { Self.digest(of: UnsafeRawBufferPointer($0)) }
        }

        /// The hash of a token's UTF-8 bytes: HighwayHash under the process's key.
        static func digest(of bytes: UnsafeRawBufferPointer) -> Int {
            Int(truncatingIfNeeded: HighwayHash.hash(bytes))
        }

        /// Whether this is the key of the token whose UTF-8 bytes are `bytes`, under `limits`,
        /// `digest` being those bytes' digest: byte for byte, as two keys are compared.
        func holds(_ bytes: UnsafeRawBufferPointer, digest: Int, limits: TokenLimits) -> Bool {
            self.digest == digest && self.limits == limits && token.hasBytes(bytes)
        }

        var sketchHash: UInt64 { UInt64(bitPattern: Int64(digest)) }

        var kept: Key { Key(token: token.kept, limits: limits, digest: digest) }

        /// The digest itself: HighwayHash, keyed per process.
        var tableHash: Int { digest }

        /// Byte for byte: `==` on strings would take two canonically equivalent tokens (a JSON
        /// serialization's header written with a decomposed accent) for one.
        static func == (lhs: Key, rhs: Key) -> Bool {
            rhs.token.withUTF8 { lhs.holds(UnsafeRawBufferPointer($0), digest: rhs.digest, limits: rhs.limits) }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
        }
    }

    /// What a decoded token of `byteCount` bytes takes besides its slot: the token's text, its
    /// signing input and signature, its payload, its header's tree and its claims' index —
    /// measured at about three times the token's size and a kilobyte (Benchmarks `cache`).
    static func cost(ofToken byteCount: Int) -> Int {
        3 * byteCount + 1024
    }

    private let state: Mutex<ClockCache<Key, DecodedToken>>

    /// A cache of at most `budget` bytes.
    init(budget: Int) {
        state = Mutex(ClockCache(budget: budget, typicalCost: Self.cost(ofToken: 1024), admitAfter: 2))
    }

    /// The token decoded under `limits`: remembered, or decoded by `decode` and remembered when
    /// it decoded.
    func decoded(_ token: TokenText, limits: TokenLimits, digest: Int? = nil,
                 decode: () -> Result<DecodedToken, TokenDecoder.Failure>) -> Result<DecodedToken, TokenDecoder.Failure> {
        let key = Key(token: token, limits: limits, digest: digest)
        if let known = state.withLock({ $0.value(for: key) }) { return .success(known) }
        let result = decode()
        if case let .success(decoded) = result {
            let cost = Self.cost(ofToken: decoded.byteCount)
            state.withLock { $0.offer(decoded, for: key, ownCost: cost) }
        }
        return result
    }

    /// Remembers `decoded`, which an evaluation holds already (a token inside a request, decoded
    /// for its `kid` before its policy judges it): a sighting, so the token is kept as one looked
    /// up again would be, but neither a hit nor a miss, since nothing was decoded or found here.
    func remember(_ decoded: DecodedToken, as token: TokenText, limits: TokenLimits) {
        let key = Key(token: token, limits: limits)
        let cost = Self.cost(ofToken: decoded.byteCount)
        state.withLock { cache in
            cache.sighted(key)
            if cache.peek(key) == nil { cache.offer(decoded, for: key, ownCost: cost) }
        }
    }

    /// Decodings avoided (hits) and done (misses), tokens evicted and declined.
    var statistics: SignatureCache.Statistics { state.withLock { $0.counts } }

    /// The memory the cache takes now, as it costs its entries.
    var bytes: Int { state.withLock { $0.bytes } }
}
