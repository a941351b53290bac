@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `claims`: a matcher per claim path, one rule each.
struct ClaimsRule: Rule {
    static let key = "claims"
    static let summary = "each named claim matches its matcher"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.claimMissing, .claimType, .claimMismatch]
    static let argumentShape: ArgumentShape = .matchers

    let path: ClaimPath
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        return compiler.matcherRules(node, key: key, names: "claim paths", label: "claim", subject: { $0.claimPath($1, at: $2) },
                                     id: \.description, rule: { ClaimsRule(path: $0, matcher: $1) })
    }

    var reportableCodes: [FindingCode] {
        let possible = matcher.possibleMismatches
        return [possible.missing ? .claimMissing : nil, possible.type ? .claimType : nil, possible.value ? .claimMismatch : nil].compactMap { $0 }
    }

    var explanation: String { "claim \(path) \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch matcher.check(path.value(in: context.decoded.claims), inputs: context.inputs) {
        case nil: return .pass(context.detail("\(path) \(matcher.explanation)"))
        case .missing: return .fail(.claimMissing, "the token has no \(path) claim")
        case let .type(message): return .fail(.claimType, "\(path): \(message)")
        case let .value(message): return .fail(.claimMismatch, "\(path): \(message)")
        }
    }
}
