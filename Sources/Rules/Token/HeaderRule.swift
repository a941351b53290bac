@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `header`: matchers on header parameters, one rule per parameter.
struct HeaderRule: Rule {
    static let key = "header"
    static let summary = "header parameters match their matchers"
    static let phase = RulePhase.header
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.headerMismatch]
    static let argumentShape: ArgumentShape = .matchers

    let parameter: String
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        return compiler.matcherRules(node, key: key, names: "header parameters", label: "header", subject: { _, name, _ in name },
                                     id: { $0 }, rule: { HeaderRule(parameter: $0, matcher: $1) })
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
