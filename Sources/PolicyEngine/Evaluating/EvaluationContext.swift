/// Everything a rule may read: the subject, the time, the inputs.
///
/// Rules never read the clock or the environment themselves; that keeps them pure and lets a
/// batch judge each record as of its own time.
public struct EvaluationContext: Sendable {
    /// The evaluation instant, in seconds since the Unix epoch.
    public let now: Double
    /// The inputs supplied for this evaluation, with declared defaults filled in.
    public let inputs: [String: JSONValue]
    /// The decoded token, for token rules.
    public let token: DecodedToken?
    /// Whether the verdict will carry a trace, and so whether rules should describe what they compared.
    public let tracing: Bool

    public init(now: Double, inputs: [String: JSONValue], token: DecodedToken?, tracing: Bool = false) {
        self.now = now
        self.inputs = inputs
        self.token = token
        self.tracing = tracing
    }

    /// A trace detail, built only when tracing: describing a comparison (dates, lists, JSON)
    /// costs more than making it, and untraced evaluations never show the text.
    public func detail(_ text: @autoclosure () -> String) -> String? {
        tracing ? text() : nil
    }

    /// A policy value with this evaluation's inputs filled in. The engine skips a rule whose
    /// inputs are absent before calling it, so inside `evaluate` this does not return nil for
    /// values the rule compiled.
    public func resolve(_ value: PolicyValue) -> JSONValue? {
        value.resolve(inputs)
    }
}

/// A compact JWS decoded once, for every rule to read.
public struct DecodedToken: Sendable {
    public let jws: CompactJWS
    public let claims: JSONObject
    /// The token's size in bytes as presented.
    public let byteCount: Int

    public init(jws: CompactJWS, claims: JSONObject, byteCount: Int) {
        self.jws = jws
        self.claims = claims
        self.byteCount = byteCount
    }

    public var header: JOSEHeader { jws.header }
}
