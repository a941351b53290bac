import PolicyEngine

/// `header`: matchers on header parameters, one rule per parameter.
struct HeaderRule: Rule {
    static let key = "header"
    static let summary = "header parameters match their matchers"
    static let phase = RulePhase.header

    let parameter: String
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        guard let pairs = node.pairs else {
            compiler.error(.wrongType, "'header' must map header parameters to matchers, found \(node.shapeDescription)", at: node)
            return []
        }
        return pairs.compactMap { pair in
            guard let matcher = compiler.matcher(pair.value, what: "header '\(pair.name)'") else { return nil }
            return compiler.finish(HeaderRule(parameter: pair.name, matcher: matcher), id: pair.name, at: pair.keyLocation)
        }
    }

    var explanation: String { "header '\(parameter)' \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch matcher.check(context.decoded.header.object[parameter], inputs: context.inputs) {
        case nil: return .pass(context.detail("header '\(parameter)' \(matcher.explanation)"))
        case .missing: return .fail(.headerMismatch, "the header has no '\(parameter)'")
        case let .type(message), let .value(message): return .fail(.headerMismatch, "header '\(parameter)': \(message)")
        }
    }
}
