@_spi(RuleAuthoring) import PolicyJOSE

/// What identifies a token for replay detection in a log: its issuer and `jti`, or, without a
/// `jti`, the SHA-256 of its signed bytes; with the record's time and the token's `exp`.
package struct BatchReplayKey: Sendable {
    /// The digest the detector remembers.
    let digest: ContentDigest
    /// The time the record was judged at.
    let time: Double
    /// The token's `exp`; nil when it has none (remembered until capacity forces it out).
    let expires: Double?
    /// How a person recognises the token: `jti 'abc' of https://issuer`, or `a token without jti`.
    package let label: String

    /// The key of `token`, judged at `time`.
    package init(_ token: DecodedToken, time: Double) {
        let claims = token.claims
        let issuer = claims["iss"]?.stringValue ?? ""
        if let jti = claims["jti"]?.stringValue {
            digest = ContentDigest(of: Array("jti\u{0}\(issuer)\u{0}\(jti)".utf8))
            label = "jti '\(jti.prefix(80))'" + (issuer.isEmpty ? "" : " of \(issuer.prefix(120))")
        } else {
            digest = token.jws.map { ContentDigest(of: $0.signedBytes) } ?? ContentDigest(of: Array("\(token.byteCount)".utf8))
            label = "a token without jti"
        }
        self.time = time
        expires = claims["exp"]?.numberValue?.doubleValue
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

    private struct Entry {
        let sighting: Sighting
        let expires: Double
    }

    /// The most tokens remembered at once.
    package let capacity: Int
    private var entries: [ContentDigest: Entry] = [:]
    /// Tokens forgotten before they expired, to stay within `capacity`.
    package private(set) var forgotten = 0
    /// The most tokens remembered at once during the run.
    package private(set) var peak = 0

    /// A detector remembering at most `capacity` tokens (default 1,000,000: about 80 MB).
    package init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
    }

    /// The earlier sighting `key` replays, or nil after remembering this one as the first.
    package mutating func check(_ key: BatchReplayKey, line: Int, input: String?) -> Sighting? {
        if let earlier = entries[key.digest] {
            if key.time < earlier.expires { return earlier.sighting }
        }
        if entries.count >= capacity { makeRoom(now: key.time) }
        entries[key.digest] = Entry(sighting: Sighting(line: line, input: input), expires: key.expires ?? .infinity)
        peak = max(peak, entries.count)
        return nil
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
        entries = entries.filter { $0.value.expires > now }
        guard entries.count >= capacity else { return }
        let dropping = max(1, capacity / 10)
        let soonest = entries.sorted { $0.value.expires < $1.value.expires }.prefix(dropping)
        for (digest, _) in soonest { entries.removeValue(forKey: digest) }
        forgotten += dropping
    }
}
