@_spi(JSONWriting) @_spi(RuleAuthoring) public import PolicyJOSE

/// The result of evaluating one subject against a policy (POLICY-FORMAT.md section 8).
public struct Verdict: Sendable, Codable {
    /// The members, in one immutable object shared by every copy: a verdict goes from the chain
    /// to the evaluation to a batch line or an answer, and a copy then retains one reference
    /// instead of its strings, arrays and trace.
    private final class Members: Sendable {
        let policy: String
        let valid: Bool
        let verified: Bool
        let keyFreshness: KeyFreshness?
        let keySnapshot: KeySnapshot?
        let findings: [Finding]
        let skipped: [String]
        let outputs: [String: JSONValue]
        let trace: Trace?
        let proof: VerificationProof?

        init(policy: String, valid: Bool, verified: Bool, keyFreshness: KeyFreshness?, keySnapshot: KeySnapshot?, findings: [Finding],
             skipped: [String], outputs: [String: JSONValue], trace: Trace?, proof: VerificationProof?) {
            self.policy = policy
            self.valid = valid
            self.verified = verified
            self.keyFreshness = keyFreshness
            self.keySnapshot = keySnapshot
            self.findings = findings
            self.skipped = skipped
            self.outputs = outputs
            self.trace = trace
            self.proof = proof
        }
    }

    private let members: Members

    /// The name of the policy that judged.
    public var policy: String { members.policy }
    /// True only if no rule failed and the signature verified with a key the policy allows.
    public var valid: Bool { members.valid }
    /// Whether the signature verified; a policy cannot turn this requirement off.
    public var verified: Bool { members.verified }
    /// For policies with remote keys: whether the keys were `fresh`, served `stale` during a
    /// provider outage, or `unavailable`. Nil when every key is local.
    public var keyFreshness: KeyFreshness? { members.keyFreshness }
    /// For a policy whose keys are judged by their history: the snapshot that stood at the
    /// evaluation time, when the token verified with a key of it.
    public var keySnapshot: KeySnapshot? { members.keySnapshot }
    /// The failed checks, in the order they ran (for `any_of`, its most specific failure).
    public var findings: [Finding] { members.findings }
    /// Rules that did not run because an optional input was absent: listed, never counted as passed.
    public var skipped: [String] { members.skipped }
    /// Values handed to the caller when the subject is valid (section 7).
    public var outputs: [String: JSONValue] { members.outputs }
    /// Every rule in the order it ran, when tracing was requested.
    public var trace: Trace? { members.trace }
    /// The engine's proof that the token verified, for a rule that judged it through this
    /// policy; nil when it did not verify, and in a verdict read back from JSON.
    public var proof: VerificationProof? { members.proof }

    /// The names of section 8, as the writer uses them: `Codable` and the CLI agree.
    private enum CodingKeys: String, CodingKey {
        case policy, valid, verified, keyFreshness = "key_freshness", keySnapshot = "key_snapshot", findings, skipped, outputs, trace
    }

    /// A verdict, for tests and for tools that build their own; it carries no `proof`, which
    /// only an evaluation makes.
    public init(policy: String, valid: Bool, verified: Bool, keyFreshness: KeyFreshness? = nil, keySnapshot: KeySnapshot? = nil, findings: [Finding],
                skipped: [String], outputs: [String: JSONValue], trace: Trace?) {
        members = Members(policy: policy, valid: valid, verified: verified, keyFreshness: keyFreshness, keySnapshot: keySnapshot, findings: findings,
                          skipped: skipped, outputs: outputs, trace: trace, proof: nil)
    }

    /// The verdict of an evaluation, carrying the proof of the key that verified.
    init(policy: String, valid: Bool, provenBy key: VerifiedKey?, keyFreshness: KeyFreshness?, findings: [Finding], skipped: [String],
         outputs: [String: JSONValue], trace: Trace?) {
        members = Members(policy: policy, valid: valid, verified: key != nil, keyFreshness: keyFreshness, keySnapshot: key?.snapshot, findings: findings,
                          skipped: skipped, outputs: outputs, trace: trace, proof: key.map(VerificationProof.init))
    }

    /// Reads a verdict as section 8 writes it (`key_freshness`, `key_snapshot` and `trace` may be
    /// absent); it carries no `proof`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(policy: try container.decode(String.self, forKey: .policy), valid: try container.decode(Bool.self, forKey: .valid),
                  verified: try container.decode(Bool.self, forKey: .verified),
                  keyFreshness: try container.decodeIfPresent(KeyFreshness.self, forKey: .keyFreshness),
                  keySnapshot: try container.decodeIfPresent(KeySnapshot.self, forKey: .keySnapshot),
                  findings: try container.decode([Finding].self, forKey: .findings), skipped: try container.decode([String].self, forKey: .skipped),
                  outputs: try container.decode([String: JSONValue].self, forKey: .outputs), trace: try container.decodeIfPresent(Trace.self, forKey: .trace))
    }

    /// Whether a finding quotes the time judged at (`QuotedTime`): then the verdict judged at
    /// another time inside its window is this one `requoted(at:)` that time.
    package var quotesTime: Bool { Finding.anyQuotesTime(members.findings) }

    /// This verdict as judging at `time` writes it, each quoted time that of `time`; itself when
    /// none is quoted. `time` must have the twenty-byte form, as every time in
    /// `UnixTime.twentyByteISO8601Times` has.
    package func requoted(at time: UnixTime) -> Verdict {
        guard quotesTime else { return self }
        let members = Members(policy: policy, valid: valid, verified: verified, keyFreshness: keyFreshness, keySnapshot: keySnapshot,
                              findings: findings.map { $0.requoted(at: time) }, skipped: skipped, outputs: outputs, trace: trace, proof: proof)
        return Verdict(members: members)
    }

    private init(members: Members) {
        self.members = members
    }

    /// Whether both are copies of one verdict (not only equal ones): what a batch worker checks
    /// before sharing a verdict line's judgement, at the cost of one comparison.
    func isIdentical(to other: Verdict) -> Bool {
        members === other.members
    }

    /// Whether `other` writes the same members (`writeMembers`), compared member by member: what
    /// lets a batch worker write one rendering for the lines of many tokens that failed alike. A
    /// verdict with a trace is never the same as another (its trace holds its own times), nor one
    /// with outputs (a verdict that hands values over is one token's).
    package func writesSameMembers(as other: Verdict) -> Bool {
        if isIdentical(to: other) { return true }
        return valid == other.valid && verified == other.verified && trace == nil && other.trace == nil && outputs.isEmpty && other.outputs.isEmpty
            && keyFreshness == other.keyFreshness && keySnapshot == other.keySnapshot && policy == other.policy && findings == other.findings
            && skipped == other.skipped
    }

    /// The finding codes, in order, for quick checks.
    public var codes: [FindingCode] { findings.map(\.code) }

    /// The verdict as section 8's JSON text, compact (one line, as batch writes it) or indented
    /// (as `policy-run check` prints it).
    public func jsonText(pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.beginObject()
        writeMembers(to: &writer)
        writer.endObject()
        return writer.text
    }

    /// The verdict as a JSON value with the section 8 member order and exact numbers, for a
    /// caller that inspects it; printing needs no tree (`jsonText`).
    public var json: JSONValue {
        JSONWriter.value { writer in
            writer.beginObject()
            writeMembers(to: &writer)
            writer.endObject()
        }
    }

    /// Encodes what `jsonText` writes: one writer for verdict lines, `--format json`, the
    /// server's answers and a service's own `Encoder`.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// `valid` and `verified` as compact text, by `2 × valid + verified`.
    private static let flagTexts: [StaticString] = [#""valid":false,"verified":false"#, #""valid":false,"verified":true"#,
                                                    #""valid":true,"verified":false"#, #""valid":true,"verified":true"#]

    /// Writes the verdict's members in section 8 order, so that a batch line can put its own
    /// members (line, input, claims) around them without building a JSON tree.
    package func writeMembers(to writer: inout JSONWriter) {
        writer.key(plain: "policy")
        writer.string(policy)
        // Written per verdict line: the two flags as one of four fixed texts, when compact.
        if writer.isPretty {
            writer.key(plain: "valid")
            writer.bool(valid)
            writer.key(plain: "verified")
            writer.bool(verified)
        } else {
            writer.members(compact: Self.flagTexts[(valid ? 2 : 0) + (verified ? 1 : 0)])
        }
        if let keyFreshness {
            writer.key(plain: "key_freshness")
            writer.string(keyFreshness.rawValue)
        }
        if let keySnapshot {
            writer.key(plain: "key_snapshot")
            keySnapshot.write(to: &writer)
        }
        // Most verdicts of a log found nothing, skipped nothing and hand nothing over: fixed text.
        if !writer.isPretty, findings.isEmpty, skipped.isEmpty, outputs.isEmpty {
            writer.members(compact: #""findings":[],"skipped":[],"outputs":{}"#)
        } else {
            writer.key(plain: "findings")
            Finding.write(findings, to: &writer)
            writer.key(plain: "skipped")
            writer.beginArray()
            for rule in skipped { writer.string(rule) }
            writer.endArray()
            writer.key(plain: "outputs")
            writeOutputs(to: &writer)
        }
        if let trace {
            writer.key(plain: "trace")
            trace.write(to: &writer)
        }
    }

    /// `outputs` as one JSON object, its members in name order: the same text whatever the
    /// dictionary's order, in a verdict line and in a batch's Arrow column alike.
    package func writeOutputs(to writer: inout JSONWriter) {
        writer.beginObject()
        // An invalid verdict hands nothing over: no sort of no names.
        for name in outputs.isEmpty ? [] : outputs.keys.sorted() {
            writer.key(name)
            writer.value(outputs[name]!)
        }
        writer.endObject()
    }
}

/// One failed check.
public struct Finding: Sendable, Codable, Equatable {
    /// Section 8's names; `findings` (the nested ones) is left out when empty, as the writer does.
    private enum CodingKeys: String, CodingKey {
        case rule, code, message, at, nested = "findings"
    }

    /// Reads a finding as section 8 writes it; absent `findings` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(rule: try container.decode(String.self, forKey: .rule), code: try container.decode(FindingCode.self, forKey: .code),
                  message: try container.decode(String.self, forKey: .message), at: try container.decode(String.self, forKey: .at),
                  nested: try container.decodeIfPresent([Finding].self, forKey: .nested) ?? [])
    }

    /// Encodes what a verdict writes of the finding, empty nested `findings` left out.
    public func encode(to encoder: any Encoder) throws {
        try JSONWriter.value(write).encode(to: encoder)
    }

    /// The rule's id, e.g. `token.expires`, or the `id` a composite rule was given.
    public let rule: String
    /// The stable code: `token_expired`.
    public let code: FindingCode
    /// What failed, for a person.
    public let message: String
    /// Where the rule is written: `file:line:column`.
    public let at: String
    /// The findings of a policy this rule evaluated in turn (a request's `bearer` token).
    public let nested: [Finding]
    /// The UTF-8 bytes of `message` that quote the time judged at (`QuotedTime`), when it does.
    package let timeQuote: Range<Int>?

    /// A finding of `rule`, written at `at` (`file:line:column`).
    public init(rule: String, code: FindingCode, message: String, at: String, nested: [Finding] = []) {
        self.init(rule: rule, code: code, message: message, timeQuote: nil, at: at, nested: nested)
    }

    /// A finding whose message quotes the time judged at in `timeQuote`.
    package init(rule: String, code: FindingCode, message: String, timeQuote: Range<Int>?, at: String, nested: [Finding] = []) {
        self.rule = rule
        self.code = code
        self.message = message
        self.timeQuote = timeQuote
        self.at = at
        self.nested = nested
    }

    /// Equal when they say the same: where a message quotes the time is not compared.
    public static func == (lhs: Finding, rhs: Finding) -> Bool {
        lhs.rule == rhs.rule && lhs.code == rhs.code && lhs.message == rhs.message && lhs.at == rhs.at && lhs.nested == rhs.nested
    }

    /// Whether this finding, or one nested in it, quotes the time judged at.
    var quotesTime: Bool { timeQuote != nil || Self.anyQuotesTime(nested) }

    /// Whether one of `findings`, or one nested in it, quotes the time judged at: read in
    /// place, where a closure over the findings copied each (a verdict kept for reuse is asked).
    static func anyQuotesTime(_ findings: [Finding]) -> Bool {
        for index in findings.indices where findings[index].timeQuote != nil || anyQuotesTime(findings[index].nested) { return true }
        return false
    }

    /// This finding as judging at `time` writes it: each quoted time that of `time`, whose
    /// twenty-byte form (`UnixTime.withISO8601Bytes`) the caller has checked exists.
    func requoted(at time: UnixTime) -> Finding {
        guard quotesTime else { return self }
        var message = message
        if let timeQuote {
            var bytes = Array(message.utf8)
            _ = UnixTime.withISO8601Bytes(time.seconds) { bytes.replaceSubrange(timeQuote, with: $0) }
            message = String(decoding: bytes, as: UTF8.self)
        }
        return Finding(rule: rule, code: code, message: message, timeQuote: timeQuote, at: at, nested: nested.map { $0.requoted(at: time) })
    }

    static func write(_ findings: [Finding], to writer: inout JSONWriter) {
        writer.beginArray()
        for finding in findings { finding.write(to: &writer) }
        writer.endArray()
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("rule", rule)
        // Lowercase snake_case, made so by `FindingCode`'s initializers: nothing to escape.
        writer.member("code", plain: code.rawValue)
        writer.member("message", message)
        writer.member("at", at)
        if !nested.isEmpty {
            writer.key("findings")
            Finding.write(nested, to: &writer)
        }
        writer.endObject()
    }
}

/// The record of an evaluation with tracing on.
public struct Trace: Sendable, Codable {
    /// One rule as it ran.
    public struct Entry: Sendable, Codable, Equatable {
        /// How the rule ended in the trace.
        public enum Status: String, Sendable, Codable {
            case pass
            case fail
            case skipped
            /// Not evaluated: a fail-fast stop, an `any_of` already satisfied, or a prerequisite failed.
            case notRun = "not_run"
        }

        /// The rule's id: `token.expires`.
        public let rule: String
        /// How it ended.
        public let status: Status
        /// Where the rule is written: `file:line:column`.
        public let at: String
        /// The values compared or the reason it did not run.
        public let detail: String?
    }

    /// The clock the evaluation used.
    public struct Clock: Sendable, Codable, Equatable {
        /// The time the subjects were judged at.
        public let now: UnixTime
        /// The same instant, as `2026-11-21T09:30:00Z`.
        public let iso8601: String
        /// Where `now` came from: `wall clock`, `--now`, `caller`.
        public let source: String

        init(now: UnixTime, source: String) {
            self.now = now
            iso8601 = now.iso8601
            self.source = source
        }
    }

    /// The clock the evaluation used.
    public var clock: Clock
    /// Every rule in the order it ran (`rules` in JSON).
    public var entries: [Entry] = []
    /// The key that verified, if one did.
    public var key: VerifiedKey?

    /// Section 8's names: the entries are `rules`.
    private enum CodingKeys: String, CodingKey {
        case clock, entries = "rules", key
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("clock")
        writer.beginObject()
        writer.key("now")
        writer.number(Int64(exactly: clock.now.seconds).map { .integer($0) } ?? .decimal(clock.now.seconds))
        writer.member("iso8601", clock.iso8601)
        writer.member("source", clock.source)
        writer.endObject()
        writer.key("rules")
        writer.beginArray()
        for entry in entries {
            writer.beginObject()
            writer.member("rule", entry.rule)
            writer.member("status", entry.status.rawValue)
            writer.member("at", entry.at)
            if let detail = entry.detail { writer.member("detail", detail) }
            writer.endObject()
        }
        writer.endArray()
        if let key {
            writer.key("key")
            key.write(to: &writer)
        }
        writer.endObject()
    }

    /// Encodes what a verdict writes of its trace.
    public func encode(to encoder: any Encoder) throws {
        try JSONWriter.value(write).encode(to: encoder)
    }
}
