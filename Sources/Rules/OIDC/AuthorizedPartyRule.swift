@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `authorized_party`: `azp` equals the client; with more than one audience it must be present
/// (OIDC Core 3.1.3.7 steps 4–5).
struct AuthorizedPartyRule: Rule {
    static let key = "authorized_party"
    static let summary = "azp equals the client, and is present when aud has several values"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.inputInvalid, .azpMissing, .azpMismatch]
    static let argumentShape: ArgumentShape = .string

    let party: PolicyValue

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let party = compiler.stringValue(node, what: "'authorized_party'") else { return [] }
        return [compiler.finish(AuthorizedPartyRule(party: party), at: node.location)]
    }

    var explanation: String { "azp equals \(party.display) (required when aud has several values)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = context.resolve(party)?.stringValue else { return .fail(.inputInvalid, "the input used by 'authorized_party' is not a string") }
        let claims = context.decoded.claims
        guard let value = claims[RegisteredClaim.azp] else {
            if let audiences = TokenClaims.audiences(claims), audiences.count > 1 {
                return .fail(.azpMissing, "aud has \(audiences.count) values, so azp must be present (OIDC Core 3.1.3.7)")
            }
            return .pass(context.detail("no azp, single audience"))
        }
        guard case let .string(azp) = value else { return .blocked("azp is not a string (see token.claim_types)") }
        guard azp.isExactly(expected) else { return .fail(.azpMismatch, "azp \"\(azp)\" is not \"\(expected)\"") }
        return .pass(context.detail("azp \"\(azp)\""))
    }
}
