@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// Always runs: the request decodes — a `{method, url, headers, body}` object within the size
/// cap, a URL that parses, headers without control bytes, a body declared JSON that is JSON.
struct RequestStructureRule: Rule {
    static let key = "structure"
    static let summary = "the request decodes: its members, URL, headers and declared JSON body"
    static let phase = RulePhase.structure
    static let findingCodes: [FindingCode] = [.requestMalformed, .bodyTooLarge, .headerInvalid, .urlInvalid, .parameterRepeated, .bodyNotJSON]
    static let argumentShape: ArgumentShape = .any
    static let runsByDefault = true
    static let isConfigurable = false

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        [compiler.finish(RequestStructureRule(), at: compiler.sectionLocation)]
    }

    var explanation: String { "the request decodes: method, url (path and query), headers, and a JSON body when declared JSON" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let problems = context.request.problems
        guard let first = problems.first else { return .pass(context.detail("the request decodes")) }
        let more = problems.count > 1 ? " (and \(problems.count - 1) more: \(problems.dropFirst().map(\.code.rawValue).joined(separator: ", ")))" : ""
        return .fail(first.code, "\(first.message)\(more)")
    }
}
