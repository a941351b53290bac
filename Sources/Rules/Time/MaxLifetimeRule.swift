@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `max_lifetime`: `exp - iat` (or `exp - nbf` without `iat`) must not exceed the duration.
struct MaxLifetimeRule: Rule {
    static let key = "max_lifetime"
    static let summary = "the token's lifetime (exp - iat, or exp - nbf) is within the bound"
    static let phase = RulePhase.time
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.claimMissing, .lifetimeTooLong]
    static let argumentShape: ArgumentShape = .duration

    let maximum: Int64

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let maximum = compiler.duration(node, what: "'max_lifetime'") else { return [] }
        return [compiler.finish(MaxLifetimeRule(maximum: maximum), at: node.location)]
    }

    var explanation: String { "exp - iat (or exp - nbf) <= \(TimeText.duration(maximum))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let claims = context.decoded.claims
        // A claim of the wrong type is token.claim_types' finding; this rule only cannot judge.
        let exp: Double
        switch TokenClaims.numericDate(RegisteredClaim.exp, in: claims) {
        case let .seconds(seconds): exp = seconds
        case .absent: return .fail(.claimMissing, "max_lifetime needs a numeric exp")
        case .unusable: return .blocked("exp is not a usable number (see token.claim_types)")
        }
        let start: (name: String, value: Double)
        switch (TokenClaims.numericDate(RegisteredClaim.iat, in: claims), TokenClaims.numericDate(RegisteredClaim.nbf, in: claims)) {
        case let (.seconds(iat), _): start = ("iat", iat)
        case let (.absent, .seconds(nbf)): start = ("nbf", nbf)
        case (.absent, .absent): return .fail(.claimMissing, "max_lifetime needs a numeric iat or nbf")
        default: return .blocked("iat or nbf is not a usable number (see token.claim_types)")
        }
        let lifetime = exp - start.value
        guard lifetime <= Double(maximum) else {
            return .fail(.lifetimeTooLong, "the token lives \(Int64(lifetime))s (exp - \(start.name)), more than \(TimeText.duration(maximum))")
        }
        return .pass(context.detail("lifetime \(Int64(lifetime))s <= \(maximum)s"))
    }
}
