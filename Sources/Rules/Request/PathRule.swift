@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `path`: the request's path, percent-decoded and normalised (`PathNormalization`: dot segments
/// removed, `//` merged, encoded slashes and `;` path parameters refused by default), matches a
/// matcher.
struct PathRule: Rule {
    static let key = "path"
    static let summary = "the percent-decoded path matches its matcher"
    static let phase = RulePhase.header
    static let findingCodes: [FindingCode] = [.urlInvalid, .pathParameter, .pathMismatch]
    static let argumentShape: ArgumentShape = .matcher

    let matcher: Matcher
    let normalization: PathNormalization

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let matcher = compiler.matcher(node, what: "'path'") else { return [] }
        return [compiler.finish(PathRule(matcher: matcher, normalization: compiler.pathNormalization()), at: node.location)]
    }

    var explanation: String { "the path \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let raw = context.request.path else { return .blocked("the request URL does not decode (see request.structure)") }
        let path: String
        switch RequestPath.normalize(Substring(raw), normalization) {
        case let .success(normalized): path = normalized
        case let .failure(problem): return .fail(problem.code, FindingMessage(problem.message))
        }
        switch matcher.check(.string(path), inputs: context.inputs) {
        case nil: return .pass(context.detail("path \(path) \(matcher.explanation)"))
        case .missing: return .fail(.pathMismatch, "the request has no path")
        case let .type(message), let .value(message): return .fail(.pathMismatch, "path \(path): \(message)")
        }
    }
}
