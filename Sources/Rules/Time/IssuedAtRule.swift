@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `issued_at`: `optional` (default), `required`, or a mapping `{required, max_age, not_in_future}`.
/// `max_age` bounds `now - iat`; `not_in_future` (default true in the mapping form) refuses an
/// `iat` ahead of the clock. Both allow the leeway.
struct IssuedAtRule: Rule {
    static let key = "issued_at"
    static let summary = "iat is present when required, not in the future, and not older than max_age"
    static let phase = RulePhase.time
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.claimMissing, .iatInFuture, .tokenTooOld]
    static let argumentShape: ArgumentShape = .anyOf([.oneOf(["required", "optional"]), .mapping([
        ("required", .boolean, "iat must be present"),
        ("max_age", .duration, "iat may be at most this old, plus the leeway"),
        ("not_in_future", .boolean, "iat may not be later than now plus the leeway (default true)"),
    ], required: [])])
    static let runsByDefault = true

    let required: Bool
    let maxAge: Int64?
    let notInFuture: Bool
    let leeway: Int64

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        let leeway = compiler.tokenSettings.leeway
        guard let node else {
            return [compiler.finish(IssuedAtRule(required: false, maxAge: nil, notInFuture: false, leeway: leeway), at: compiler.sectionLocation)]
        }
        if node.scalar != nil {
            guard let presence = Presence.read(node, key: key, &compiler) else { return [] }
            return [compiler.finish(IssuedAtRule(required: presence == .required, maxAge: nil, notInFuture: false, leeway: leeway), at: node.location)]
        }
        guard let fields = compiler.mapping(node, allowed: ["required", "max_age", "not_in_future"], what: "'issued_at'") else { return [] }
        var required = false, maxAge: Int64?, notInFuture = true, ok = true
        for field in fields {
            switch field.name {
            case "required":
                if let flag = compiler.bool(field.value, what: "'issued_at.required'") { required = flag } else { ok = false }
            case "max_age":
                if let age = compiler.duration(field.value, what: "'issued_at.max_age'") { maxAge = age } else { ok = false }
            default:
                if let flag = compiler.bool(field.value, what: "'issued_at.not_in_future'") { notInFuture = flag } else { ok = false }
            }
        }
        guard ok else { return [] }
        return [compiler.finish(IssuedAtRule(required: required, maxAge: maxAge, notInFuture: notInFuture, leeway: leeway), at: node.location)]
    }

    var reportableCodes: [FindingCode] {
        [required || maxAge != nil ? .claimMissing : nil, notInFuture ? .iatInFuture : nil, maxAge != nil ? .tokenTooOld : nil].compactMap { $0 }
    }

    var explanation: String {
        var parts = [required ? "iat is present" : "iat is optional"]
        if notInFuture { parts.append("iat <= now + \(TimeText.duration(leeway))") }
        if let maxAge { parts.append("now - iat <= \(TimeText.duration(maxAge)) + \(TimeText.duration(leeway))") }
        return parts.joined(separator: "; ")
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch context.decoded.numericDate(RegisteredClaim.iat) {
        case .absent:
            if required { return .fail(.claimMissing, "the token has no iat, and the policy requires one") }
            if maxAge != nil { return .fail(.claimMissing, "the token has no iat, so its age cannot be checked against max_age") }
            return .pass(context.detail("no iat (optional)"))
        case .unusable:
            return .blocked("iat is not a usable number (see token.claim_types)")
        case let .seconds(iat):
            // iat > now + leeway and now - iat > max_age + leeway, as comparisons of now with bounds.
            if notInFuture, context.isBefore(iat - Double(leeway)) {
                return .fail(.iatInFuture, "issued at \(UnixTime(seconds: iat)), in the future of \(context.quotedNow) beyond the \(leeway)s leeway")
            }
            if let maxAge, !context.isBefore((iat + Double(maxAge + leeway)).nextUp) {
                return .fail(.tokenTooOld, "issued at \(UnixTime(seconds: iat)), more than \(TimeText.duration(maxAge)) (+\(leeway)s leeway) before \(context.quotedNow)")
            }
            return .pass(context.detail("iat \(UnixTime.iso8601(iat))"))
        }
    }
}
