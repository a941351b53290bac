internal import Synchronization

/// Tokens decoded once: a token presented again (a session's every request, one access token in
/// many log records) is not base64-decoded and parsed again; its time and claim rules still run
/// on every evaluation.
///
/// Only signed tokens are kept: their decoding depends on nothing but their text and the
/// limits, which make the key, so a token decoded under one policy's limits never answers for
/// another's. An encrypted token's decoding depends on the decryption keys and is not kept.
/// Entries are immutable `DecodedToken`s shared by the evaluations that find them.
///
/// A token is kept only from its second decoding on: the first leaves just its hash in a set
/// of the tokens seen, so a log of unique tokens does not fill memory with trees it never reads
/// again (a decoded token holds about 5 KiB). Both are bounded and start over when full, which
/// costs a decoding per token and never a wrong answer.
final class DecodedTokenCache: Sendable {
    struct Key: Hashable {
        let token: String
        let limits: TokenLimits
        /// The hash of the token's bytes, taken once in one block (see `SignatureCache.Key`).
        let digest: Int

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
    private let state = Mutex<(entries: [Key: DecodedToken], seen: Set<Int>, statistics: SignatureCache.Statistics)>(([:], [], .init()))

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
                // The hash stands for the token until it is seen again; a collision only admits
                // a token a decoding early, since entries are compared by their text.
                guard state.seen.remove(key.digest) != nil else {
                    if state.seen.count >= capacity * 4 { state.seen.removeAll(keepingCapacity: true) }
                    state.seen.insert(key.digest)
                    return
                }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
                state.entries[key] = decoded
            }
        }
        return result
    }

    /// Decodings avoided (hits) and done (misses).
    var statistics: SignatureCache.Statistics { state.withLock { $0.statistics } }
}
