@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `not_before`: `nbf` is optional by default; whenever present, `nbf <= now + leeway`.
struct NotBeforeRule: Rule {
    static let key = "not_before"
    static let summary = "nbf (when present, or required) is not in the future, allowing the leeway"
    static let phase = RulePhase.time
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.claimMissing, .tokenNotYetValid]
    static let argumentShape: ArgumentShape = .oneOf(["required", "optional"])
    static let runsByDefault = true

    let required: Bool
    let leeway: Int64

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        let presence = node.map { Presence.read($0, key: key, &compiler) } ?? .optional
        guard let presence else { return [] }
        return [compiler.finish(NotBeforeRule(required: presence == .required, leeway: compiler.tokenSettings.leeway), at: node?.location ?? compiler.sectionLocation)]
    }

    var reportableCodes: [FindingCode] { required ? Self.findingCodes : [.tokenNotYetValid] }

    var explanation: String { "nbf is \(required ? "present" : "optional; when present it is checked") and nbf <= now + \(TimeText.duration(leeway)) leeway" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch context.decoded.numericDate(RegisteredClaim.nbf) {
        case .absent:
            return required ? .fail(.claimMissing, "the token has no nbf, and the policy requires one") : .pass(context.detail("no nbf (optional)"))
        case .unusable:
            return .blocked("nbf is not a usable number (see token.claim_types)")
        case let .seconds(nbf):
            // nbf <= now + leeway, as a comparison of now with a bound.
            guard !context.isBefore(nbf - Double(leeway)) else {
                return .fail(.tokenNotYetValid, "not valid before \(UnixTime(seconds: nbf)); evaluated at \(context.quotedNow) with \(leeway)s leeway")
            }
            return .pass(context.detail("nbf \(UnixTime.iso8601(nbf)) <= now \(context.now.iso8601) + \(leeway)s"))
        }
    }
}
