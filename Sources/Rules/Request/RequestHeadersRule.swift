@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `headers`: a matcher per header, names case-insensitive, one rule each. A header sent once
/// is matched as a string; one sent several times as the list of its values.
struct RequestHeadersRule: Rule {
    static let key = "headers"
    static let summary = "named headers (case-insensitive) match their matchers"
    static let phase = RulePhase.header
    static let findingCodes: [FindingCode] = [.headerMismatch]
    static let argumentShape: ArgumentShape = .matchers

    let name: String
    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        return compiler.matcherRules(node, key: key, names: "header names", label: "header", subject: { compiler, name, keyNode in
            guard RequestSubject.headerProblem(name: name, value: "") == nil else {
                compiler.error(.invalidValue, "'\(name)' is not a valid header name", at: keyNode)
                return nil
            }
            return name
        }, id: { $0.lowercased() }, rule: { RequestHeadersRule(name: $0, matcher: $1) })
    }

    var explanation: String { "header \(name) \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let values = context.request.header(name)
        let value: JSONValue? = values.isEmpty ? nil : values.count == 1 ? .string(values[0]) : .array(values.map { .string($0) })
        switch matcher.check(value, inputs: context.inputs) {
        case nil: return .pass(context.detail("header \(name) \(matcher.explanation)"))
        case .missing: return .fail(.headerMismatch, "the request has no \(name) header")
        case let .type(message), let .value(message): return .fail(.headerMismatch, "header \(name): \(message)")
        }
    }
}
