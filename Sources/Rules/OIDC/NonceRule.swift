@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// `nonce`: the token's `nonce` is present and equals the one the client sent (OIDC Core 3.1.3.7 step 11).
struct NonceRule: Rule {
    static let key = "nonce"
    static let summary = "nonce is present and equals the expected value"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.inputInvalid, .claimMissing, .nonceMismatch]
    static let argumentShape: ArgumentShape = .string

    let nonce: PolicyValue

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let nonce = compiler.stringValue(node, what: "'nonce'") else { return [] }
        return [compiler.finish(NonceRule(nonce: nonce), at: node.location)]
    }

    var explanation: String { "nonce equals \(nonce.display)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = context.resolve(nonce)?.stringValue else { return .fail(.inputInvalid, "the input used by 'nonce' is not a string") }
        guard let value = context.decoded.claims[RegisteredClaim.nonce] else { return .fail(.claimMissing, "the token has no nonce") }
        guard case let .string(actual) = value else { return .blocked("nonce is not a string (see token.claim_types)") }
        guard ConstantTime.equals(actual, expected) else { return .fail(.nonceMismatch, "nonce \"\(actual)\" does not match the expected nonce") }
        return .pass(context.detail("nonce matches"))
    }
}
