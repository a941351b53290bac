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
        issuers.withResolved(in: context) { expected in
            switch context.decoded.kind(of: RegisteredClaim.iss) {
            case nil: return .fail(.claimMissing, "the token has no iss; expected \(shown: expected)")
            case .string?: break
            default: return .blocked("iss is not a string (see token.claim_types)")
            }
            // Compared in place: the issuer's text is built only for a message.
            guard context.decoded.string(RegisteredClaim.iss, equalsOneOf: expected) else {
                return .fail(.issuerMismatch, "iss \"\(context.decoded.text(of: RegisteredClaim.iss))\" is not \(shown: expected)")
            }
            return .pass(context.detail("iss \"\(context.decoded.text(of: RegisteredClaim.iss))\" in \(RuleCompiler.show(expected))"))
        } ?? .fail(.inputInvalid, "an input used by 'issuer' is not a string")
    }
}
