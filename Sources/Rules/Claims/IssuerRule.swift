@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `issuer`: `iss` equals one of the values exactly (no trimming, no case folding).
struct IssuerRule: Rule {
    static let key = "issuer"
    static let summary = "iss equals one of the trusted issuers exactly"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.inputInvalid, .claimMissing, .issuerMismatch]
    static let argumentShape: ArgumentShape = .strings

    let issuers: StringValues

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let issuers = compiler.stringValues(node, what: "'issuer'") else { return [] }
        compiler.lintIssuer(issuers, at: node, checksKeyHost: true)
        return [compiler.finish(IssuerRule(issuers: StringValues(issuers)), at: node.location)]
    }

    var explanation: String { "iss equals \(issuers.display.joined(separator: " or "))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = issuers.resolved(in: context) else { return .fail(.inputInvalid, "an input used by 'issuer' is not a string") }
        let claims = context.decoded.claims
        switch claims.kind(of: RegisteredClaim.iss) {
        case nil: return .fail(.claimMissing, "the token has no iss; expected \(shown: expected)")
        case .string?: break
        default: return .blocked("iss is not a string (see token.claim_types)")
        }
        // Compared in place: the issuer's text is built only for a message.
        let issuer = { claims[RegisteredClaim.iss]?.stringValue ?? "" }
        guard expected.contains(where: { claims.string(RegisteredClaim.iss, equals: $0) }) else {
            return .fail(.issuerMismatch, "iss \"\(issuer())\" is not \(shown: expected)")
        }
        return .pass(context.detail("iss \"\(issuer())\" in \(RuleCompiler.show(expected))"))
    }
}
