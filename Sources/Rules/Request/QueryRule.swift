@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `query`: a matcher per query parameter, one rule each; a parameter sent twice fails, since
/// two parsers may each pick a different copy (parameter pollution).
struct QueryRule: Rule {
    static let key = "query"
    static let summary = "named query parameters match their matchers; a repeated parameter fails"
    static let phase = RulePhase.header
    static let findingCodes: [FindingCode] = [.parameterRepeated, .queryMismatch]
    static let argumentShape: ArgumentShape = .matchers

    let name: String
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        return compiler.matcherRules(node, key: key, names: "parameter names", label: "query parameter", subject: { _, name, _ in name },
                                     id: { $0 }, rule: { QueryRule(name: $0, matcher: $1) })
    }

    var explanation: String { "query parameter \(name) \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let query = context.request.query else { return .blocked("the request URL does not decode (see request.structure)") }
        let values = query.values(name)
        guard values.count <= 1 else { return .fail(.parameterRepeated, "the query parameter '\(name)' appears \(values.count) times") }
        switch matcher.check(values.first.map { .string($0) }, inputs: context.inputs) {
        case nil: return .pass(context.detail("query parameter \(name) \(matcher.explanation)"))
        case .missing: return .fail(.queryMismatch, "the request has no query parameter '\(name)'")
        case let .type(message), let .value(message): return .fail(.queryMismatch, "query parameter \(name): \(message)")
        }
    }
}
