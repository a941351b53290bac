@_spi(JSONWriting) @_spi(RuleAuthoring) package import PolicyJOSE

/// The verdict on one log record, with where the record was and what its token said.
///
/// What the token's verdict says is kept in one immutable object (`Judgement`): a line is
/// copied through the pipeline (judged, written, counted, checked for replays) and, for a
/// repeated token, made again for every record, so a copy retains one reference rather than
/// each string of the verdict.
package struct BatchVerdict: Sendable {
    /// What a token's verdict line says besides where its record was.
    final class Judgement: Sendable {
        let verdict: Verdict
        let issuer: String?
        let kid: String?
        let claims: JSONObject?
        /// The line's members after `line` and `input`, as compact JSON text, when rendered
        /// once for a judgement that many records share (`rendered()`).
        let renderedMembers: [UInt8]?

        init(verdict: Verdict, issuer: String?, kid: String?, claims: JSONObject?, renderedMembers: [UInt8]? = nil) {
            self.verdict = verdict
            self.issuer = issuer
            self.kid = kid
            self.claims = claims
            self.renderedMembers = renderedMembers
        }

        /// This judgement as judging at `time` makes it: its verdict `requoted(at:)` that time.
        func requoted(at time: UnixTime) -> Judgement {
            Judgement(verdict: verdict.requoted(at: time), issuer: issuer, kid: kid, claims: claims)
        }

        /// This judgement with its members rendered, for the records that will share it.
        func rendered() -> Judgement {
            guard renderedMembers == nil else { return self }
            var writer = JSONWriter()
            writer.beginObject()
            write(to: &writer)
            return Judgement(verdict: verdict, issuer: issuer, kid: kid, claims: claims, renderedMembers: writer.withBytes { Array($0.dropFirst()) })
        }

        /// The members after `line` and `input`.
        func write(to writer: inout JSONWriter) {
            if let renderedMembers, !writer.isPretty {
                writer.members(compact: renderedMembers)
                return
            }
            if let issuer {
                writer.key(plain: "iss")
                writer.string(issuer)
            }
            if let kid {
                writer.key(plain: "kid")
                writer.string(kid)
            }
            verdict.writeMembers(to: &writer)
            if let claims {
                writer.key("claims")
                writer.value(.object(claims))
            }
        }
    }

    /// The record's line number in its input, from 1.
    package let line: Int
    /// The input file, when there are several (nil for standard input).
    package let input: String?
    /// What identifies a verified token for replay detection; nil unless the run detects
    /// replays and the token verified.
    package let replayKey: BatchReplayKey?
    /// The seconds of the time the record was judged at (its own, the run's default or the
    /// wall clock); NaN for a record that was not judged (a malformed line).
    private let judgedSeconds: Double
    /// Whether that time was the wall clock's: the record had none and the run no default.
    package let judgedAtClock: Bool
    private let judgement: Judgement

    /// The time the record was judged at: its own, the run's default or the wall clock; nil
    /// for a line that held no usable record.
    package var time: UnixTime? { judgedSeconds.isNaN ? nil : UnixTime(seconds: judgedSeconds) }

    /// The verdict on the record.
    package var verdict: Verdict { judgement.verdict }
    /// The token's `iss`, unverified, for summaries; nil when it did not decode.
    package var issuer: String? { judgement.issuer }
    /// The token's header `kid`, unverified; nil when it did not decode.
    package var kid: String? { judgement.kid }
    /// The token's claims, when the run includes them.
    package var claims: JSONObject? { judgement.claims }

    /// A verdict line for a record.
    package init(line: Int, input: String?, time: UnixTime? = nil, atClock: Bool = false, verdict: Verdict, issuer: String?, kid: String?,
                 claims: JSONObject?, replayKey: BatchReplayKey? = nil) {
        self.init(line: line, input: input, time: time, atClock: atClock, replayKey: replayKey,
                  judgement: Judgement(verdict: verdict, issuer: issuer, kid: kid, claims: claims))
    }

    /// A verdict line for a record whose judgement other lines may share.
    init(line: Int, input: String?, time: UnixTime?, atClock: Bool, replayKey: BatchReplayKey?, judgement: Judgement) {
        self.line = line
        self.input = input
        self.judgedSeconds = time?.seconds ?? .nan
        self.judgedAtClock = atClock
        self.replayKey = replayKey
        self.judgement = judgement
    }

    /// This verdict with its members after `line` and `input` rendered once, for the records
    /// that will share it (`moved`).
    func rendered() -> BatchVerdict {
        BatchVerdict(line: line, input: input, time: time, atClock: judgedAtClock, replayKey: replayKey, judgement: judgement.rendered())
    }

    /// This verdict line for another record, judged at `time` (the clock's when `atClock`),
    /// whose token got the same verdict: when the verdict `quotesTime` it was judged at, with
    /// `time` quoted instead (`Verdict.requoted(at:)`), which must be a quotable time.
    func moved(line: Int, input: String?, at time: UnixTime, atClock: Bool, quotesTime: Bool) -> BatchVerdict {
        // A quoted time is written to the second: within the same one, the line says the same.
        let requote = quotesTime && time.seconds.rounded(.down) != judgedSeconds.rounded(.down)
        let judgement = requote ? judgement.requoted(at: time) : judgement
        return BatchVerdict(line: line, input: input, time: time, atClock: atClock, replayKey: replayKey?.at(time.seconds), judgement: judgement)
    }

    /// Whether the members are rendered (`rendered()`).
    var isRendered: Bool { judgement.renderedMembers != nil }

    /// Whether this line says what `other` says besides where its record was, by sharing its
    /// judgement (`JudgementSharing`): a run of such lines is counted at once (`BatchSummary.add(contentsOf:)`).
    package func sharesJudgement(with other: BatchVerdict) -> Bool {
        judgement === other.judgement
    }

    /// This verdict with a `token_replayed` finding: the token was presented at `earlier` and
    /// is presented again within its lifetime.
    package func replayed(of earlier: BatchReplayDetector.Sighting) -> BatchVerdict {
        guard let key = replayKey else { return self }
        let place = "line \(earlier.line)" + (earlier.input.map { " of \($0)" } ?? "")
        let until = key.expires.map { " (it expires at \(UnixTime.iso8601($0)))" } ?? " (it has no exp)"
        let finding = Finding(rule: "batch.replay", code: .tokenReplayed,
                              message: "\(key.label) was presented before, at \(place), and again within its lifetime\(until)",
                              at: "\(input ?? "input"):\(line)")
        let marked = Verdict(policy: verdict.policy, valid: false, verified: verdict.verified, keyFreshness: verdict.keyFreshness,
                             keySnapshot: verdict.keySnapshot, findings: verdict.findings + [finding], skipped: verdict.skipped, outputs: [:],
                             trace: verdict.trace)
        return BatchVerdict(line: line, input: input, time: time, atClock: judgedAtClock, verdict: marked, issuer: issuer, kid: kid, claims: claims,
                            replayKey: replayKey)
    }

    /// The verdict's JSON line, ending in a newline, appended to `writer`: `line` (and
    /// `input`), the token's `iss` and `kid` as it states them (unverified; left out when it has
    /// none), the verdict's members, and `claims` when included.
    package func writeJSONLine(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(plain: "line")
        writer.integer(Int64(line))
        if let input {
            writer.key(plain: "input")
            writer.string(input)
        }
        judgement.write(to: &writer)
        writer.endObject()
        writer.append(UInt8(ascii: "\n"))
    }
}

/// Totals over a batch: what a reader of a long log wants first.
package struct BatchSummary: Sendable {
    /// Records counted: every line that is not blank, malformed ones included.
    package private(set) var records = 0
    /// Records whose verdict is valid.
    package private(set) var valid = 0
    /// Records whose verdict is not: `records - valid`, kept for the JSON and text summaries.
    package private(set) var invalid = 0
    /// Records judged at the wall clock: they carried no time (a misnamed time field?) and the
    /// run had no default time.
    package private(set) var judgedAtClock = 0
    /// Findings by code (a record with two findings counts twice).
    package private(set) var codes: [FindingCode: Int] = [:]
    /// Records by issuer and by kid (`-` when the token had none or did not decode), in bounded
    /// memory: both come from unverified tokens too.
    package private(set) var issuers = BoundedCounts()
    package private(set) var kids = BoundedCounts()
    /// The input limits the run applied, stated with its totals.
    package var limits: BatchInputLimits?
    /// With `--detect-replay`: the replays found (the first ten as examples), and how the
    /// detector's memory held up.
    package var replays: Replays?
    /// Records whose verdict was an earlier record's with the same token, reused because it
    /// holds at their time; nil when the run kept no verdicts.
    package var reusedVerdicts: Int?
    /// Records whose token the verdict memo had not seen, verified without asking the signature
    /// cache; nil when the run kept no verdicts.
    package var firstSightings: Int?

    /// Replays found in a run.
    package struct Replays: Sendable {
        package var count = 0
        /// The first ten replays found.
        package var examples: [BatchReplayDetector.Replay] = []
        package var capacity = 0
        package var peak = 0
        package var forgotten = 0

        package init() {}

        /// Counts `found`, keeping the first ten as examples.
        package mutating func add(_ found: [BatchReplayDetector.Replay]) {
            count += found.count
            examples += found.prefix(max(0, 10 - examples.count))
        }

        package var json: JSONValue {
            func place(_ sighting: BatchReplayDetector.Sighting) -> JSONValue {
                var object = JSONObject(["line": .number(.integer(Int64(sighting.line)))])
                if let input = sighting.input { object.set("input", .string(input)) }
                return .object(object)
            }
            return .object(JSONObject([
                "count": .number(.integer(Int64(count))),
                "examples": .array(examples.map { .object(JSONObject(["token": .string($0.label), "first": place($0.first), "again": place($0.again)])) }),
                "capacity": .number(.integer(Int64(capacity))), "peak_remembered": .number(.integer(Int64(peak))),
                "forgotten_before_expiry": .number(.integer(Int64(forgotten))),
            ]))
        }
    }

    /// An empty summary.
    package init() {}

    /// Counts one record.
    package mutating func add(_ verdict: BatchVerdict) {
        if verdict.judgedAtClock { judgedAtClock += 1 }
        add(judgementOf: verdict, records: 1)
    }

    /// Counts the records of `verdicts`, as `add` each: a run of lines that share one
    /// judgement (most of a log: one issuer's valid tokens, one token's repeats) is counted once,
    /// with its length, where counting each record hashed its issuer and kid again.
    package mutating func add(contentsOf verdicts: [BatchVerdict]) {
        var runStart = 0
        for index in verdicts.indices {
            if verdicts[index].judgedAtClock { judgedAtClock += 1 }
            guard index > runStart, !verdicts[index].sharesJudgement(with: verdicts[runStart]) else { continue }
            add(judgementOf: verdicts[runStart], records: index - runStart)
            runStart = index
        }
        if !verdicts.isEmpty { add(judgementOf: verdicts[runStart], records: verdicts.count - runStart) }
    }

    /// Counts `count` records whose lines say what `verdict` says besides where and when.
    private mutating func add(judgementOf verdict: BatchVerdict, records count: Int) {
        records += count
        if verdict.verdict.valid { valid += count } else { invalid += count }
        for finding in verdict.verdict.findings { codes[finding.code, default: 0] += count }
        issuers.add(verdict.issuer ?? "-", count: count)
        kids.add(verdict.kid ?? "-", count: count)
    }

    /// Adds the counts of another part of the same run (a chunk counted by its worker).
    package mutating func merge(_ other: BatchSummary) {
        records += other.records
        valid += other.valid
        invalid += other.invalid
        judgedAtClock += other.judgedAtClock
        codes.merge(other.codes, uniquingKeysWith: +)
        issuers.merge(other.issuers)
        kids.merge(other.kids)
    }

    /// The summary as JSON, with the run's duration and rate, and the process's peak memory.
    package func json(seconds: Double, cache: SignatureCache.Statistics?, peakMemoryBytes: Int? = nil) -> JSONValue {
        func counts(_ table: [String: Int]) -> JSONValue {
            var object = JSONObject()
            for (name, count) in table.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                object.set(name, .number(.integer(Int64(count))))
            }
            return .object(object)
        }
        var object = JSONObject([
            "records": .number(.integer(Int64(records))), "valid": .number(.integer(Int64(valid))),
            "invalid": .number(.integer(Int64(invalid))), "judged_at_clock": .number(.integer(Int64(judgedAtClock))),
            "codes": counts(Dictionary(uniqueKeysWithValues: codes.map { ($0.key.rawValue, $0.value) })),
            "issuers": counts(issuers.counts), "kids": counts(kids.counts),
            "issuers_not_listed": .number(.integer(Int64(issuers.notListed))), "kids_not_listed": .number(.integer(Int64(kids.notListed))),
            "seconds": .number(.decimal((seconds * 1000).rounded() / 1000)),
            "records_per_second": .number(.integer(seconds > 0 ? Int64(Double(records) / seconds) : 0)),
        ])
        if let limits { object.set("limits", limits.json) }
        if let replays { object.set("replays", replays.json) }
        if let peakMemoryBytes { object.set("max_rss_bytes", .number(.integer(Int64(peakMemoryBytes)))) }
        if let reusedVerdicts { object.set("verdicts_reused", .number(.integer(Int64(reusedVerdicts)))) }
        if let cache {
            var counts = JSONObject([
                "hits": .number(.integer(Int64(cache.hits))), "misses": .number(.integer(Int64(cache.misses))),
                "evictions": .number(.integer(Int64(cache.evictions))),
            ])
            if let rate = cache.hitRate { counts.set("hit_rate", .number(.decimal((rate * 10000).rounded() / 10000))) }
            if let firstSightings { counts.set("first_sightings", .number(.integer(Int64(firstSightings)))) }
            object.set("signature_cache", .object(counts))
        }
        return .object(object)
    }
}
