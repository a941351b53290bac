internal import Synchronization

/// Tokens decoded once: a token presented again (a session's every request, one access token in
/// many log records) is not base64-decoded and parsed again; its time and claim rules still run
/// on every evaluation.
///
/// Only signed tokens are kept: their decoding depends on nothing but their text and the
/// limits, which make the key, so a token decoded under one policy's limits never answers for
/// another's. An encrypted token's decoding depends on the decryption keys and is not kept.
/// Entries are immutable `DecodedToken`s shared by the evaluations that find them. The cache
/// is bounded: when full, it starts over, which costs one decoding per token and never a wrong
/// answer.
final class DecodedTokenCache: Sendable {
    struct Key: Hashable {
        let token: String
        let limits: TokenLimits
        /// The hash of the token's bytes, taken once in one block (see `SignatureCache.Key`).
        private let digest: Int

        init(token: String, limits: TokenLimits) {
            self.token = token
            self.limits = limits
            var hasher = Hasher()
            var text = token
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            digest = hasher.finalize()
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && lhs.limits == rhs.limits && lhs.token == rhs.token
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
        }
    }

    /// The most tokens kept.
    let capacity: Int
    private let state = Mutex<(entries: [Key: DecodedToken], statistics: SignatureCache.Statistics)>(([:], .init()))

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The token decoded under `limits`: remembered, or decoded by `decode` and remembered when
    /// it decoded.
    func decoded(_ token: String, limits: TokenLimits,
                 decode: () -> Result<DecodedToken, TokenDecoder.Failure>) -> Result<DecodedToken, TokenDecoder.Failure> {
        let key = Key(token: token, limits: limits)
        let known = state.withLock { state in
            let known = state.entries[key]
            if known != nil { state.statistics.hits += 1 } else { state.statistics.misses += 1 }
            return known
        }
        if let known { return .success(known) }
        let result = decode()
        if case let .success(decoded) = result {
            state.withLock { state in
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
                state.entries[key] = decoded
            }
        }
        return result
    }

    /// Decodings avoided (hits) and done (misses).
    var statistics: SignatureCache.Statistics { state.withLock { $0.statistics } }
}
