@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `trusted_audiences`: every `aud` value must be an expected or trusted audience (OIDC Core
/// 3.1.3.7 step 3: a token carrying untrusted extra audiences is rejected).
struct TrustedAudiencesRule: Rule {
    static let key = "trusted_audiences"
    static let summary = "every aud value is an expected or trusted audience"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.inputInvalid, .claimMissing, .audienceUntrusted]
    static let argumentShape: ArgumentShape = .anyOf([.string, .list(.string)])

    /// The `audience` values; their own rule reports a token that lists none of them.
    let expected: StringValues
    let trusted: StringValues

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        // An empty list is meaningful: no audience beyond `audience` is trusted.
        let listed = node.items?.isEmpty == true ? [] : compiler.stringValues(node, what: "'trusted_audiences'")
        guard let listed else { return [] }
        let audience = compiler.setting("audience").map { audienceNode in
            compiler.quietly { $0.stringValues(audienceNode, what: "'audience'") ?? [] }
        } ?? []
        return [compiler.finish(TrustedAudiencesRule(expected: StringValues(audience), trusted: StringValues(audience + listed)), at: node.location)]
    }

    /// Without `audience`, this rule is the one that finds `aud` missing; with it, `audience` is.
    var reportableCodes: [FindingCode] { expected.display.isEmpty ? Self.findingCodes : [.inputInvalid, .audienceUntrusted] }

    var explanation: String { "every aud value is one of \(trusted.display.joined(separator: ", "))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let allowed = trusted.resolved(in: context), let audience = expected.resolved(in: context) else {
            return .fail(.inputInvalid, "an input used by 'trusted_audiences' is not a string")
        }
        let claims = context.decoded.claims
        guard claims[RegisteredClaim.aud] != nil else {
            return audience.isEmpty ? .fail(.claimMissing, "the token has no aud") : .blocked("the token has no aud (see token.audience)")
        }
        guard let present = TokenClaims.audiences(claims) else { return .blocked("aud is not a string or array of strings (see token.claim_types)") }
        if !audience.isEmpty, !present.contains(where: audience.containsExactly) {
            return .blocked("aud lists none of the expected audiences (see token.audience)")
        }
        let untrusted = present.filter { !allowed.containsExactly($0) }
        guard untrusted.isEmpty else {
            return .fail(.audienceUntrusted, "aud includes untrusted \(shown: untrusted)")
        }
        return .pass(context.detail("aud \(RuleCompiler.show(present)) all trusted"))
    }
}
