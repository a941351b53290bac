@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// `challenge`: the code challenge is the one the verifier makes under the client's method —
/// BASE64URL(SHA-256(ASCII(verifier))) for S256, the verifier itself for plain (RFC 7636 §4.6).
struct PKCEChallengeRule: Rule {
    static let key = "challenge"
    static let summary = "the code challenge is the one the verifier makes (S256, or plain if allowed)"
    static let phase = RulePhase.hashes
    static let findingCodes: [FindingCode] = [.inputInvalid, .pkceMismatch]
    static let argumentShape: ArgumentShape = .string

    let challenge: PolicyValue
    let verifier: PolicyValue
    /// The `challenge_method` value when the section states one; otherwise the first allowed method.
    let declared: PolicyValue?
    let allowed: [PKCEMethod]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let challenge = compiler.stringValue(node, what: "'challenge'") else { return [] }
        guard let verifierNode = compiler.setting("verifier") else {
            compiler.error(.missingKey, "'challenge' needs 'verifier' in the same section to compare with", at: node)
            return []
        }
        guard let verifier = compiler.quietly({ $0.stringValue(verifierNode, what: "'verifier'") }) else { return [] }
        let declared = compiler.setting("challenge_method").flatMap { declaredNode in compiler.quietly { $0.stringValue(declaredNode, what: "'challenge_method'") } }
        let rule = PKCEChallengeRule(challenge: challenge, verifier: verifier, declared: declared, allowed: compiler.pkceMethods())
        return [compiler.finish(rule, at: node.location, evenWithout: declared)]
    }

    var explanation: String {
        "the challenge \(challenge.display) is made from the verifier \(verifier.display) with "
            + (declared.map { "the declared method \($0.display)" } ?? allowed[0].rawValue)
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let challengeText = context.resolve(challenge)?.stringValue, let verifierText = context.resolve(verifier)?.stringValue else {
            return .fail(.inputInvalid, "the challenge and verifier inputs must be strings")
        }
        guard PKCEVerifierRule.problem(verifierText) == nil else { return .blocked("the verifier is malformed (see pkce.verifier)") }
        let method: PKCEMethod
        if let declared {
            guard case let .method(found) = PKCEMethod.declared(declared, in: context), allowed.contains(found) else {
                return .blocked("the declared method is not allowed (see pkce.challenge_method)")
            }
            method = found
        } else {
            method = allowed[0]
        }
        guard ConstantTime.equals(method.challenge(for: verifierText), challengeText) else {
            return .fail(.pkceMismatch, "the challenge is not the \(method.rawValue) challenge of the verifier")
        }
        return .pass(context.detail("the \(method.rawValue) challenge of the verifier matches"))
    }
}
