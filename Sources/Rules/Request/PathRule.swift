import PolicyEngine

/// `path`: the request's percent-decoded path matches a matcher.
struct PathRule: Rule {
    static let key = "path"
    static let summary = "the percent-decoded path matches its matcher"
    static let phase = RulePhase.header

    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let matcher = compiler.matcher(node, what: "'path'") else { return [] }
        return [compiler.finish(PathRule(matcher: matcher), at: node.location)]
    }

    var explanation: String { "the path \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let path = context.request.path else { return .blocked("the request URL does not decode (see request.structure)") }
        switch matcher.check(.string(path), inputs: context.inputs) {
        case nil: return .pass(context.detail("path \(path) \(matcher.explanation)"))
        case .missing: return .fail(.pathMismatch, "the request has no path")
        case let .type(message), let .value(message): return .fail(.pathMismatch, "path \(path): \(message)")
        }
    }
}
