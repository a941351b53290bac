@_spi(JSONWriting) @_spi(RuleAuthoring) public import PolicyJOSE

/// What one rule concluded about one subject.
@_spi(RuleAuthoring) public struct RuleOutcome: Sendable {
    /// How a rule ended.
    public enum Status: String, Sendable, Codable {
        case pass
        case fail
        /// The rule could not run because something it depends on failed first.
        case blocked
    }

    /// Everything beyond the status, which a plain pass (the common case, run for every rule of
    /// every token) does not carry: one optional reference keeps that pass free of copying and
    /// releasing six fields.
    @usableFromInline final class Particulars: Sendable {
        let code: FindingCode?
        let message: String?
        /// Where `message` quotes the time judged at (`FindingMessage.timeQuote`).
        let timeQuote: Range<Int>?
        let detail: String?
        let outputs: [String: JSONValue]
        let nested: [Finding]
        let nestedTrace: [Trace.Entry]
        let oneTimeValues: [OneTimeValue]

        @usableFromInline init(code: FindingCode? = nil, message: String? = nil, timeQuote: Range<Int>? = nil, detail: String?,
             outputs: [String: JSONValue] = [:], nested: [Finding] = [], nestedTrace: [Trace.Entry] = [], oneTimeValues: [OneTimeValue] = []) {
            self.code = code
            self.message = message
            self.timeQuote = timeQuote
            self.detail = detail
            self.outputs = outputs
            self.nested = nested
            self.nestedTrace = nestedTrace
            self.oneTimeValues = oneTimeValues
        }
    }

    /// Whether the rule passed, failed or could not run.
    public let status: Status
    @usableFromInline let particulars: Particulars?
    /// The key of a `verified(by:)` outcome: apart from the particulars, so that the pass that
    /// proves a token's origin, the one every valid verdict has, allocates nothing.
    @usableFromInline let proofKey: VerifiedKey?

    /// The finding code of a failure.
    public var code: FindingCode? { particulars?.code }
    /// What failed, for a person, in a failure.
    public var message: String? { particulars?.message }
    /// The values compared, for the trace; secrets are never put here.
    public var detail: String? { particulars?.detail }
    /// The key that verified, when the outcome carries the engine's proof (`verified(by:)`).
    public var verifiedKey: VerifiedKey? { proofKey }
    /// Values a passing rule hands to the verdict's `outputs` (a callback's `code` and `state`).
    public var outputs: [String: JSONValue] { particulars?.outputs ?? [:] }
    /// For a failing rule that evaluated another policy: that policy's findings.
    public var nested: [Finding] { particulars?.nested ?? [] }
    /// For a rule that evaluated another policy with tracing on: that policy's trace, which the
    /// verdict's trace lists under the rule.
    public var nestedTrace: [Trace.Entry] { particulars?.nestedTrace ?? [] }
    /// Values a passing rule found that may be used once: the evaluation records them in its
    /// replay store when every rule held, and a value used before makes the verdict invalid.
    public var oneTimeValues: [OneTimeValue] { particulars?.oneTimeValues ?? [] }

    /// Whether this is a pass with nothing beyond its status: what most rules of most
    /// evaluations return, which the chain then takes without reading any particular.
    var isPlainPass: Bool { status == .pass && particulars == nil && proofKey == nil }

    @usableFromInline init(_ status: Status, _ particulars: Particulars?, proofKey: VerifiedKey? = nil) {
        self.status = status
        self.particulars = particulars
        self.proofKey = proofKey
    }

    /// A pass with nothing beyond its status and, when tracing, what was compared: what most
    /// rules return for most tokens, made without the empty collections the full form takes.
    ///
    /// - Parameter detail: What was compared, for the trace (build it with `context.detail`).
    @inlinable public static func pass(_ detail: String? = nil) -> RuleOutcome {
        RuleOutcome(.pass, detail.map { Particulars(detail: $0) })
    }

    /// A pass that hands values on.
    ///
    /// - Parameters:
    ///   - detail: What was compared, for the trace (build it with `context.detail`, which
    ///     skips the work when no trace is kept).
    ///   - outputs: Values to hand to the verdict's `outputs` when the subject is valid.
    ///   - nestedTrace: The trace of a policy this rule evaluated in turn.
    ///   - oneTimeValues: Values the request may use only once (a DPoP proof's `jti`).
    public static func pass(_ detail: String? = nil, outputs: [String: JSONValue] = [:], nestedTrace: [Trace.Entry] = [],
                            oneTimeValues: [OneTimeValue] = []) -> RuleOutcome {
        RuleOutcome(.pass, detail == nil && outputs.isEmpty && nestedTrace.isEmpty && oneTimeValues.isEmpty ? nil
                        : Particulars(detail: detail, outputs: outputs, nestedTrace: nestedTrace, oneTimeValues: oneTimeValues))
    }

    /// A failure, reported as a finding.
    ///
    /// - Parameters:
    ///   - code: The finding's stable code; its kind tells composition whether the subject was
    ///     judged (`mismatch`, `absent`) or could not be (`undecided`).
    ///   - message: What failed, for a person; never a secret.
    ///   - detail: What was compared, for the trace.
    ///   - nested: Findings of a policy this rule evaluated in turn.
    ///   - nestedTrace: That policy's trace.
    public static func fail(_ code: FindingCode, _ message: FindingMessage, detail: String? = nil, nested: [Finding] = [],
                            nestedTrace: [Trace.Entry] = []) -> RuleOutcome {
        RuleOutcome(.fail, Particulars(code: code, message: message.text, timeQuote: message.timeQuote, detail: detail, nested: nested, nestedTrace: nestedTrace))
    }

    /// The rule could not judge because another rule's failure kept it from running (an
    /// unsigned token for a signature-dependent check). No finding of its own; composition
    /// counts it as undecided.
    public static func blocked(_ reason: String) -> RuleOutcome {
        RuleOutcome(.blocked, Particulars(detail: reason))
    }

    /// A pass that proves the token's origin, with the engine's proof: the verdict counts the
    /// token as verified only through such an outcome.
    public static func verified(by proof: consuming VerificationProof, detail: String? = nil, nestedTrace: [Trace.Entry] = []) -> RuleOutcome {
        RuleOutcome(.pass, detail == nil && nestedTrace.isEmpty ? nil : Particulars(detail: detail, nestedTrace: nestedTrace), proofKey: proof.key)
    }
}

/// The key a signature verified with, as the trace shows it.
public struct VerifiedKey: Sendable, Codable, Equatable {
    /// The members, in one immutable object: a key goes from the signature's outcome through the
    /// chain to the verdict and its proof, and a copy then retains one reference rather than
    /// its strings and snapshot.
    private final class Members: Sendable {
        let kid: String?
        let source: String
        let freshness: KeyFreshness
        let snapshot: KeySnapshot?

        init(kid: String?, source: String, freshness: KeyFreshness, snapshot: KeySnapshot?) {
            self.kid = kid
            self.source = source
            self.freshness = freshness
            self.snapshot = snapshot
        }
    }

    private let members: Members

    /// The key's `kid`, if it has one.
    public var kid: String? { members.kid }
    /// Where the key came from, as the policy writes it: `jwks_file keys.json`.
    public var source: String { members.source }
    /// `stale` when a remote key set was served past its TTL because the source failed.
    public var freshness: KeyFreshness { members.freshness }
    /// For a source judged by its history, the snapshot that stood at the evaluation time.
    public var snapshot: KeySnapshot? { members.snapshot }

    /// Describes a key; it proves nothing until the engine puts it in a `VerificationProof`.
    public init(kid: String?, source: String, freshness: KeyFreshness = .fresh, snapshot: KeySnapshot? = nil) {
        members = Members(kid: kid, source: source, freshness: freshness, snapshot: snapshot)
    }

    private enum CodingKeys: String, CodingKey {
        case kid, source, freshness, snapshot
    }

    /// Reads a key as a trace writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(kid: try container.decodeIfPresent(String.self, forKey: .kid), source: try container.decode(String.self, forKey: .source),
                  freshness: try container.decode(KeyFreshness.self, forKey: .freshness),
                  snapshot: try container.decodeIfPresent(KeySnapshot.self, forKey: .snapshot))
    }

    /// The same key from the same source, as fresh and of the same snapshot: member by member,
    /// at once when both copies share their members.
    public static func == (lhs: VerifiedKey, rhs: VerifiedKey) -> Bool {
        lhs.members === rhs.members
            || (lhs.kid == rhs.kid && lhs.source == rhs.source && lhs.freshness == rhs.freshness && lhs.snapshot == rhs.snapshot)
    }

    /// Whether both copies are of one description (not only equal): a local key's proofs are
    /// made once, so an evaluation can find what it prepared for that key by identity alone.
    func isSameDescription(as other: VerifiedKey) -> Bool {
        members === other.members
    }

    /// Encodes what a trace writes of the key.
    public func encode(to encoder: any Encoder) throws {
        try JSONWriter.value(write).encode(to: encoder)
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("source", source)
        writer.member("freshness", freshness.rawValue)
        if let kid { writer.member("kid", kid) }
        if let snapshot {
            writer.key("snapshot")
            snapshot.write(to: &writer)
        }
        writer.endObject()
    }
}
