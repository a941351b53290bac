@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `expires`: `exp` must be present (by default) and, whenever present, `now < exp + leeway`.
struct ExpiresRule: Rule {
    static let key = "expires"
    static let summary = "exp is present (unless optional) and not passed, allowing the leeway"
    static let phase = RulePhase.time
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.claimMissing, .tokenExpired]
    static let argumentShape: ArgumentShape = .oneOf(["required", "optional"])
    static let runsByDefault = true

    let required: Bool
    let leeway: Int64

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        let presence = node.map { Presence.read($0, key: key, &compiler) } ?? .required
        guard let presence else { return [] }
        return [compiler.finish(ExpiresRule(required: presence == .required, leeway: compiler.tokenSettings.leeway), at: node?.location ?? compiler.sectionLocation)]
    }

    var reportableCodes: [FindingCode] { required ? Self.findingCodes : [.tokenExpired] }

    var explanation: String { "exp is \(required ? "present" : "optional; when present it is checked") and now < exp + \(TimeText.duration(leeway)) leeway" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch context.decoded.numericDate(RegisteredClaim.exp) {
        case .absent:
            return required ? .fail(.claimMissing, "the token has no exp, and the policy requires one") : .pass(context.detail("no exp (optional)"))
        case .unusable:
            return .blocked("exp is not a usable number (see token.claim_types)")
        case let .seconds(exp):
            guard context.isBefore(exp + Double(leeway)) else {
                return .fail(.tokenExpired, "expired at \(UnixTime(seconds: exp)); evaluated at \(context.quotedNow) with \(leeway)s leeway")
            }
            return .pass(context.detail("now \(context.now.iso8601) < exp \(UnixTime.iso8601(exp)) + \(leeway)s"))
        }
    }
}
