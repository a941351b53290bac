import PolicyEngine

/// `claims`: a matcher per claim path, one rule each.
struct ClaimsRule: Rule {
    static let key = "claims"
    static let summary = "each named claim matches its matcher"
    static let phase = RulePhase.claims

    let path: ClaimPath
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        guard let pairs = node.pairs else {
            compiler.error(.wrongType, "'claims' must map claim paths to matchers, found \(node.shapeDescription)", at: node)
            return []
        }
        return pairs.compactMap { pair in
            let keyNode = YAMLNode(.scalar(YAMLScalar(text: pair.name, isPlain: false)), location: pair.keyLocation, path: pair.value.path)
            guard let path = compiler.claimPath(pair.name, at: keyNode),
                  let matcher = compiler.matcher(pair.value, what: "claim '\(pair.name)'") else { return nil }
            return compiler.finish(ClaimsRule(path: path, matcher: matcher), id: path.description, at: pair.keyLocation)
        }
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
