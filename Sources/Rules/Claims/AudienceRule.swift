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
        guard let expected = audiences.resolved(in: context) else { return .fail(.inputInvalid, "an input used by 'audience' is not a string") }
        let claims = context.decoded.claims
        switch claims.kind(of: RegisteredClaim.aud) {
        case nil: return .fail(.claimMissing, "the token has no aud; expected \(shown: expected)")
        // A single audience is compared in place; its text is built only for the trace.
        case .string? where expected.contains(where: { claims.string(RegisteredClaim.aud, equals: $0) }):
            return .pass(context.detail("aud \(RuleCompiler.show(TokenClaims.audiences(claims) ?? [])) includes one of \(RuleCompiler.show(expected))"))
        default: break
        }
        guard let present = TokenClaims.audiences(claims) else { return .blocked("aud is not a string or array of strings (see token.claim_types)") }
        guard present.contains(where: expected.containsExactly) else {
            return .fail(.audienceMismatch, "aud \(shown: present) does not include \(shown: expected)")
        }
        return .pass(context.detail("aud \(RuleCompiler.show(present)) includes one of \(RuleCompiler.show(expected))"))
    }
}
