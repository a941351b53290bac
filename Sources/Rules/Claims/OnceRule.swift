@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `once`: a claim's value may be used once while it is valid (a one-time token's `jti`, a
/// challenge): recorded in the evaluation's replay store when every other rule held, until the
/// token expires (`within: exp`) or for a duration, and refused the second time.
///
/// The value is recorded with the token's issuer, so two issuers' equal `jti`s stay apart. Runs
/// with the claims, after the signature: a forged token never uses up a value.
struct OnceRule: Rule {
    static let key = "once"
    static let summary = "a claim's value is accepted once while it is valid (replay store)"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.claimMissing, .claimType, .valueReplayed]
    static let argumentShape: ArgumentShape = .mapping([
        ("value", .string, "the claim whose value may be used once: claims.jti"),
        ("within", .string, "how long it is remembered: exp (until the token expires, plus leeway) or a duration after the evaluation (10m)"),
    ], required: ["value"])

    /// How long a value is remembered.
    enum Lifetime: Sendable {
        /// Until the token's `exp`, plus the leeway that still accepts it.
        case expiry(leeway: Int64)
        /// This long after the evaluation time.
        case duration(Int64)
    }

    let path: ClaimPath
    let lifetime: Lifetime

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, compiler.mapping(node, allowed: ["value", "within"], what: "'once'") != nil else { return [] }
        guard let valueNode = node["value"] else {
            compiler.error(.missingKey, "'once' needs 'value': the claim that may be used once, such as claims.jti", at: node)
            return []
        }
        guard let text = compiler.literalString(valueNode, what: "'value'") else { return [] }
        guard text.hasPrefix("claims."), let path = compiler.claimPath(String(text.dropFirst(7)), at: valueNode) else {
            compiler.error(.invalidValue, "'value' names a claim as claims.NAME, found '\(text)'", at: valueNode, hint: "write claims.jti")
            return []
        }
        var lifetime = Lifetime.expiry(leeway: compiler.tokenSettings.leeway)
        if let withinNode = node["within"] {
            if withinNode.scalar?.string == "exp" {
                lifetime = .expiry(leeway: compiler.tokenSettings.leeway)
            } else if let seconds = compiler.duration(withinNode, what: "'within' (exp or a duration)"), seconds > 0 {
                lifetime = .duration(seconds)
            } else {
                return []
            }
        }
        return [compiler.finish(OnceRule(path: path, lifetime: lifetime), at: node.location)]
    }

    var explanation: String {
        switch lifetime {
        case .expiry: "claim \(path) is used once before the token expires"
        case let .duration(seconds): "claim \(path) is used once within \(TimeText.duration(seconds))"
        }
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let claims = context.decoded.claims
        let value: String
        switch path.value(in: claims) {
        case nil: return .fail(.claimMissing, "the token has no \(path) claim, which may be used once")
        case let .string(text)?: value = text
        case let .number(number)?: value = number.description
        case let other?: return .fail(.claimType, "claim \(path) is \(other.typeName); a value used once is a string or a number")
        }
        let expires: UnixTime
        switch lifetime {
        case let .duration(seconds):
            expires = UnixTime(seconds: context.now.seconds + Double(seconds))
        case let .expiry(leeway):
            guard case let .seconds(exp) = TokenClaims.numericDate(RegisteredClaim.exp, in: claims) else {
                return .fail(.claimMissing, "the token has no usable exp to remember its \(path) until (once: within: exp)")
            }
            expires = UnixTime(seconds: exp + Double(leeway))
        }
        let issuer = claims[RegisteredClaim.iss]?.stringValue ?? ""
        let once = OneTimeValue(value, scope: "once \(issuer) \(path)", expires: expires, replayCode: .valueReplayed,
                                what: "the token's \(path)")
        return .pass(context.detail("\(path) to be recorded as used until \(expires.iso8601)"), oneTimeValues: [once])
    }
}
