@_spi(RuleAuthoring) public import PolicyJOSE

/// Whether evaluation stops at the first failed rule or reports every failure.
public enum EvaluationMode: String, Sendable, Codable, CaseIterable {
    case failFast = "fail_fast"
    case collectAll = "collect_all"
}

/// A compiled policy: immutable, `Sendable`, compiled once and evaluated many times from any thread.
public struct Policy: Sendable {
    /// The policy's `policy:` name, as verdicts report it.
    public let name: String
    /// The policy's `description`, if written.
    public let description: String?
    /// `fail_fast` or `collect_all`.
    public let mode: EvaluationMode
    /// The inputs the policy declares, which callers pass at evaluation.
    public let inputs: [InputDeclaration]
    /// The values a valid verdict hands over.
    public let outputs: [OutputDeclaration]
    /// The token's packaging and size bounds, applied before any rule runs.
    package let envelope: TokenEnvelope
    /// The JWS algorithms the `token` section allows, in policy order; empty without a token
    /// section and for `format: jwe`, whose tokens are never signed.
    public let algorithms: [JWSAlgorithm]
    /// The chain every subject goes through.
    @_spi(RuleAuthoring) public let root: ChainNode
    /// The files the policy was compiled from, the policy's own first, then its bases.
    public let files: [String]
    /// Lint warnings found while compiling (the policy compiled despite them).
    public let warnings: [Diagnostic]

    /// Every key source the policy names, for verification and decryption, in policy order.
    package let keySources: [KeySource]
    /// Where remote key sets are fetched and kept; shared with every policy compiled with it.
    public let keyCache: JWKSCache
    /// The `jwks_uri` and `discovery` sources among `keySources`, each once.
    public let remoteKeySources: [RemoteKeySource]
    /// The sections whose subject every evaluation must supply: `token`, `request`, `callback`.
    public let subjects: [String]
    /// The rules that check tokens inside the token, found once.
    let tokenEmbeddingRules: [any TokenEmbeddingRule]
    /// The headers and claim layouts of this policy's tokens decoded lately, for every
    /// evaluation that brings none of its own.
    package let decodingMemory = DecodingMemory()
    /// Whether a verdict depends on nothing but the token's text, the inputs and the time, so
    /// that a repeated token's verdict can be reused (`Evaluation.stableWithin`): a policy of
    /// signed tokens alone whose keys are at hand (no remote set that may rotate, no decryption
    /// key), with no rule that judges another token under a policy of its own.
    package let verdictsReusable: Bool
    /// The verdict of a token that verified with a local key and met every rule, with nothing
    /// skipped, handed over or traced, made once per key (`plainValidVerdict(provenBy:)`): the
    /// verdict of most tokens of a log then allocates nothing.
    private let plainValidVerdicts: [Verdict]
    /// How to compile this policy again from the bytes its compile read (`recompiled()`); nil for a
    /// policy made otherwise.
    var recompiling: PolicyRecompiling?

    /// The policy the token in `claim` must satisfy (`embedded_tokens`), if the policy names one:
    /// what a test runner mints that token for.
    package func embeddedPolicy(at claim: ClaimPath) -> Policy? {
        tokenEmbeddingRules.first { $0.embeddedPolicy.claim == claim }?.embeddedPolicy.policy
    }

    init(name: String, description: String?, mode: EvaluationMode, inputs: [InputDeclaration], outputs: [OutputDeclaration],
         envelope: TokenEnvelope, algorithms: [JWSAlgorithm], root: ChainNode, files: [String], warnings: [Diagnostic], keySources: [KeySource], keyCache: JWKSCache,
         subjects: [String]) {
        self.name = name
        self.description = description
        self.mode = mode
        self.inputs = inputs
        self.outputs = outputs
        self.envelope = envelope
        self.algorithms = algorithms
        self.root = root
        self.files = files
        self.warnings = warnings
        self.keySources = keySources
        self.keyCache = keyCache
        self.subjects = subjects
        remoteKeySources = keySources.compactMap(\.remote).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        tokenEmbeddingRules = root.rules.compactMap { $0.rule as? any TokenEmbeddingRule }
        verdictsReusable = subjects == ["token"] && remoteKeySources.isEmpty && tokenEmbeddingRules.isEmpty && envelope.format == .jws
            && envelope.decryption == nil
        plainValidVerdicts = keySources.flatMap(\.localProofs).prefix(Self.plainValidVerdictLimit).map {
            Verdict(policy: name, valid: true, provenBy: $0, keyFreshness: nil, findings: [], skipped: [], outputs: [:], trace: nil)
        }
    }

    /// Local keys beyond this many get a verdict of their own each time: looking a key up by
    /// identity stays a short scan.
    static let plainValidVerdictLimit = 32

    /// The verdict made once for a token `key` verified that met every rule with nothing
    /// skipped, handed over or traced; nil when `key` is not one of the policy's local keys'.
    func plainValidVerdict(provenBy key: VerifiedKey) -> Verdict? {
        plainValidVerdicts.first { $0.proof?.key.isSameDescription(as: key) == true }
    }

    func withWarnings(_ warnings: [Diagnostic]) -> Policy {
        Policy(name: name, description: description, mode: mode, inputs: inputs, outputs: outputs, envelope: envelope, algorithms: algorithms,
               root: root, files: files, warnings: warnings, keySources: keySources, keyCache: keyCache,
               subjects: subjects)
    }
}
