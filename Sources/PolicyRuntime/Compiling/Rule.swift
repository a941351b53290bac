@_spi(RuleAuthoring) import PolicyJOSE

/// One check a policy can state, both its declaration and its runtime.
///
/// A rule type names its YAML key, reads its arguments through a `RuleCompiler` (which records
/// located diagnostics), and evaluates a decoded subject. Rules are pure: the time, the inputs and
/// the keys come in the context, so a compiled rule is reused across threads and subjects.
@_spi(RuleAuthoring) public protocol Rule: Sendable {
    /// The key the rule is written under in its section, e.g. `issuer`.
    static var key: String { get }
    /// One line on what the rule checks, for `explain` and the docs.
    static var summary: String { get }
    /// Where the rule runs in fail-fast order.
    static var phase: RulePhase { get }
    /// What the rule accepts under its key, for the JSON Schema of policies (`PolicySchema`);
    /// rules authors never write (`isConfigurable` false) say `.any`.
    static var argumentShape: ArgumentShape { get }
    /// Every code the rule's findings may carry: what `policy-run test --coverage` expects some
    /// case to exercise, and what a debug build checks each finding of the rule against.
    static var findingCodes: [FindingCode] { get }
    /// The codes this compiled rule can report as written: an optional `nbf` is never
    /// `claim_missing`. By default every code of the type; the debug check and coverage use this.
    var reportableCodes: [FindingCode] { get }
    /// Whether the rule also runs when its section does not name it (`expires` is required by
    /// default; registered claims are always type-checked).
    static var runsByDefault: Bool { get }
    /// Whether authors write the key; false for checks that always run with no settings
    /// (the type checks of registered claims).
    static var isConfigurable: Bool { get }
    /// What the rule's failure says about the caller: that its credential is not acceptable, or
    /// that an acceptable one is not allowed this. An HTTP front answers 401 or 403 by it.
    static var failureMeaning: RuleFailureMeaning { get }

    /// Compiles the rule from its YAML value (nil when absent and `runsByDefault`). A key may
    /// compile to several rules (one per claim of `claims`); problems go to `compiler`.
    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule]

    /// What this compiled rule checks, in words, for `explain`.
    var explanation: String { get }

    /// Checks the subject in `context`.
    func evaluate(_ context: EvaluationContext) -> RuleOutcome
}

/// A rule that checks a token inside the token with another policy (`embedded_tokens`).
@_spi(RuleAuthoring) public protocol TokenEmbeddingRule: Rule {
    /// The claim that holds the token, and the policy it must satisfy.
    var embeddedPolicy: (claim: ClaimPath, policy: Policy) { get }
    /// The tokens inside `token` this rule will check, so that the remote keys they need are
    /// fetched before rules run, which answer from the cache alone.
    func embeddedTokens(in token: DecodedToken) -> [String]
}

extension Rule {
    /// By default a rule runs only where its section names it.
    public static var runsByDefault: Bool { false }
    /// By default every code of the rule's type.
    public var reportableCodes: [FindingCode] { Self.findingCodes }
    /// By default authors write the rule's key.
    public static var isConfigurable: Bool { true }
    /// By default a failure denies an acceptable caller (403).
    public static var failureMeaning: RuleFailureMeaning { .notAllowed }
}

/// What a failed rule says about the caller.
@_spi(RuleAuthoring) public enum RuleFailureMeaning: Sendable {
    /// The credential itself is not acceptable: not authentic, not current, not meant for us
    /// (HTTP 401, RFC 6750 `invalid_token`).
    case notAuthenticated
    /// An acceptable credential is not allowed what it asks (HTTP 403, `insufficient_scope`).
    case notAllowed
}

/// The order rules run in: structure, header, then the signature (or a nested token's
/// verification), then times, claims and hashes.
///
/// The signature comes before every claim so that no claim rule can end a chain for a token
/// that did not verify: a forgery is reported `signature_invalid`, never as a mismatch whose
/// message quotes what the policy expects (SECURITY.md, "Signature first").
@_spi(RuleAuthoring) public enum RulePhase: Int, Sendable, Comparable, Codable, CaseIterable {
    case structure
    case header
    case signature
    case time
    case claims
    case hashes

    /// Earlier phases run first under `fail_fast`.
    public static func < (lhs: RulePhase, rhs: RulePhase) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A rule ready to run, with the identity and source location verdicts report.
///
/// A class: the chain is walked for every token, and passing a reference costs one retain where
/// copying the value would retain its rule, id, location and inputs each.
@_spi(RuleAuthoring) public final class CompiledRule: Sendable {
    /// The compiled rule itself.
    public let rule: any Rule
    /// The rule's name in verdicts: `token.expires`, `token.claims.cid`.
    public let id: String
    /// Where the rule is written, for findings and traces.
    public let location: SourceLocation
    /// `location` as findings and traces quote it (`file:line:column`), made once rather than
    /// for every finding.
    public let locationText: String
    /// Whether the rule is the engine's signature check, whose failure keeps later rules from
    /// judging the token's claims: asked once, not cast for each failure.
    let checksSignature: Bool
    /// When the rule runs under `fail_fast`; usually its type's phase.
    public let phase: RulePhase
    /// The inputs the rule reads; when an optional one is absent the rule is skipped.
    public let inputs: [String]

    /// A compiled rule; rules usually get one from `RuleCompiler.finish(_:at:)`, which fills
    /// the id, phase and inputs the compiler tracked.
    public init(rule: any Rule, id: String, location: SourceLocation, phase: RulePhase, inputs: [String]) {
        self.rule = rule
        self.id = id
        self.location = location
        locationText = location.description
        checksSignature = rule is SignatureRule
        self.phase = phase
        self.inputs = inputs
    }
}
