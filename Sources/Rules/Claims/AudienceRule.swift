@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `audience`: `aud` (a string or an array) contains at least one of the values.
struct AudienceRule: Rule {
    static let key = "audience"
    static let summary = "aud contains at least one of the expected audiences"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.inputInvalid, .claimMissing, .audienceMismatch]
    static let argumentShape: ArgumentShape = .strings

    let audiences: StringValues

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let audiences = compiler.stringValues(node, what: "'audience'") else { return [] }
        return [compiler.finish(AudienceRule(audiences: StringValues(audiences)), at: node.location)]
    }

    var explanation: String { "aud contains \(audiences.display.joined(separator: " or "))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        audiences.withResolved(in: context) { expected in
            switch context.decoded.kind(of: RegisteredClaim.aud) {
            case nil: return .fail(.claimMissing, "the token has no aud; expected \(shown: expected)")
            // A single audience is compared in place; its text is built only for the trace or
            // the message, without a list of one.
            case .string?:
                if context.decoded.string(RegisteredClaim.aud, equalsOneOf: expected) { return .pass(context.detail("aud \(RuleCompiler.show(context.decoded.audiences ?? [])) includes one of \(RuleCompiler.show(expected))")) }
                return .fail(.audienceMismatch, "aud \(shown: context.decoded.text(of: RegisteredClaim.aud)) does not include \(shown: expected)")
            default: break
            }
            guard let present = context.decoded.audiences else { return .blocked("aud is not a string or array of strings (see token.claim_types)") }
            guard present.contains(where: expected.containsExactly) else {
                return .fail(.audienceMismatch, "aud \(shown: present) does not include \(shown: expected)")
            }
            return .pass(context.detail("aud \(RuleCompiler.show(present)) includes one of \(RuleCompiler.show(expected))"))
        } ?? .fail(.inputInvalid, "an input used by 'audience' is not a string")
    }
}
