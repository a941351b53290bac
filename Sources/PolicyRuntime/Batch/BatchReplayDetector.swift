@_spi(RuleAuthoring) import PolicyJOSE

/// What identifies a token for replay detection in a log: its issuer and `jti`, or, without a
/// `jti`, the SHA-256 of its signed bytes; with the record's time and the token's `exp`.
package struct BatchReplayKey: Sendable {
    /// What the key says of the token, the same at every record that presents it: one object,
    /// so that a verdict line, which holds a key, stays small to copy.
    private final class Token: Sendable {
        let digest: ContentDigest
        let expires: Double?
        let jti: String?
        let issuer: String

        init(digest: ContentDigest, expires: Double?, jti: String?, issuer: String) {
            self.digest = digest
            self.expires = expires
            self.jti = jti
            self.issuer = issuer
        }
    }

    private let token: Token
    /// The time the record was judged at.
    let time: Double
    /// The digest the detector remembers.
    var digest: ContentDigest { token.digest }
    /// The token's `exp`; nil when it has none (remembered until capacity forces it out).
    var expires: Double? { token.expires }

    /// How a person recognises the token: `jti 'abc' of https://issuer`, or `a token without
    /// jti`; made only for the records that are replays.
    package var label: String {
        guard let jti = token.jti else { return "a token without jti" }
        return "jti '\(jti.prefix(80))'" + (token.issuer.isEmpty ? "" : " of \(token.issuer.prefix(120))")
    }

    /// The key of `token`, judged at `time`.
    package init(_ token: DecodedToken, time: Double) {
        let claims = token.claims
        let issuer = claims[RegisteredClaim.iss]?.stringValue ?? ""
        let jti = claims[RegisteredClaim.jti]?.stringValue
        let digest = if let jti {
            ContentDigest(of: Array("jti\u{0}\(issuer)\u{0}\(jti)".utf8))
        } else {
            token.jws.map { ContentDigest(of: $0.signedBytes) } ?? ContentDigest(of: Array("\(token.byteCount)".utf8))
        }
        self.token = Token(digest: digest, expires: claims[RegisteredClaim.exp]?.numberValue?.doubleValue, jti: jti, issuer: issuer)
        self.time = time
    }

    private init(token: Token, time: Double) {
        self.token = token
        self.time = time
    }

    /// The key of the same token judged at `time`: a reused verdict's record.
    func at(_ time: Double) -> BatchReplayKey {
        BatchReplayKey(token: token, time: time)
    }
}

/// Finds tokens presented again within their lifetime in a log read in order (`policy-run
/// batch --detect-replay`): the first sighting of each verified token is remembered until its
/// `exp`, and a later record of the same token before then is a replay.
///
/// Bounded: at most `capacity` tokens are remembered. When more are alive at once, those that
/// expire first are forgotten and counted, so the summary says how much memory a complete
/// answer needs instead of growing without bound.
package struct BatchReplayDetector: Sendable {
    /// A token seen before.
    package struct Sighting: Sendable, Equatable {
        /// The record's line, and its input when there are several.
        package let line: Int
        package let input: String?
    }

    /// A replay found: the token, where it was first presented and where again.
    package struct Replay: Sendable {
        package let label: String
        package let first: Sighting
        package let again: Sighting
    }

    /// A token remembered: 16 bytes of key and 12 of value; with the table's spare room and its
    /// growth, about 70 bytes a token at the peak (measured: 300,000 live tokens, +21 MiB).
    private struct Key: Hashable {
        let high: UInt64, low: UInt64

        init(_ digest: ContentDigest) {
            (high, low) = digest.first128Bits
        }
    }

    private struct Entry {
        /// Seconds since the epoch, rounded up; `UInt32.max` for a token without `exp`.
        let expires: UInt32
        /// The line, `UInt32.max` for one past it.
        let line: UInt32
        /// The input's place in `inputs`, 0 for none.
        let input: UInt16

        func expired(at now: Double) -> Bool { Double(expires) <= now }
    }

    /// The most tokens remembered at once.
    package let capacity: Int
    private var entries: [Key: Entry] = [:]
    /// The inputs named by sightings, each once (a run reads a few files).
    private var inputs: [String?] = [nil]
    /// Tokens forgotten before they expired, to stay within `capacity`.
    package private(set) var forgotten = 0
    /// The most tokens remembered at once during the run.
    package private(set) var peak = 0

    /// A detector remembering at most `capacity` tokens (default 250,000: about 20 MB with
    /// the table's growth, measured).
    package init(capacity: Int = 250_000) {
        self.capacity = max(1, capacity)
    }

    /// The earlier sighting `key` replays, or nil after remembering this one as the first.
    package mutating func check(_ key: BatchReplayKey, line: Int, input: String?) -> Sighting? {
        let digest = Key(key.digest)
        if let earlier = entries[digest], !earlier.expired(at: key.time) {
            return Sighting(line: Int(earlier.line), input: inputs[Int(earlier.input)])
        }
        if entries.count >= capacity { makeRoom(now: key.time) }
        let expires = key.expires.map { UInt32(clamping: Int64(min(max($0.rounded(.up), 0), Double(UInt32.max - 1)))) } ?? .max
        entries[digest] = Entry(expires: expires, line: UInt32(clamping: line), input: inputIndex(input))
        peak = max(peak, entries.count)
        return nil
    }

    private mutating func inputIndex(_ input: String?) -> UInt16 {
        if let index = inputs.firstIndex(of: input) { return UInt16(clamping: index) }
        guard inputs.count < Int(UInt16.max) else { return 0 }
        inputs.append(input)
        return UInt16(inputs.count - 1)
    }

    /// Marks each verdict of `verdicts` (a chunk, in input order) whose token was presented
    /// before within its lifetime; the replays found.
    package mutating func mark(_ verdicts: inout [BatchVerdict]) -> [Replay] {
        var found: [Replay] = []
        for index in verdicts.indices {
            guard let key = verdicts[index].replayKey,
                  let first = check(key, line: verdicts[index].line, input: verdicts[index].input) else { continue }
            verdicts[index] = verdicts[index].replayed(of: first)
            found.append(Replay(label: key.label, first: first, again: Sighting(line: verdicts[index].line, input: verdicts[index].input)))
        }
        return found
    }

    /// Drops expired tokens, then, if that is not enough, the tenth that expire soonest.
    private mutating func makeRoom(now: Double) {
        entries = entries.filter { !$0.value.expired(at: now) }
        guard entries.count >= capacity else { return }
        let dropping = max(1, capacity / 10)
        let soonest = entries.sorted { $0.value.expires < $1.value.expires }.prefix(dropping)
        for (digest, _) in soonest { entries.removeValue(forKey: digest) }
        forgotten += dropping
    }
}
