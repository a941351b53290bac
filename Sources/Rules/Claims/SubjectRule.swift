@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `subject`: a matcher on `sub`.
struct SubjectRule: Rule {
    static let key = "subject"
    static let summary = "sub matches the matcher"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.claimMissing, .claimType, .subjectMismatch]
    static let argumentShape: ArgumentShape = .matcher

    let matcher: Matcher

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let matcher = compiler.matcher(node, what: "'subject'") else { return [] }
        return [compiler.finish(SubjectRule(matcher: matcher), at: node.location)]
    }

    var explanation: String { "sub \(matcher.explanation)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch matcher.check(context.decoded.claims[RegisteredClaim.sub], inputs: context.inputs) {
        case nil: return .pass(context.detail("sub \(matcher.explanation)"))
        case .missing: return .fail(.claimMissing, "the token has no sub")
        case let .type(message): return .fail(.claimType, "sub: \(message)")
        case let .value(message): return .fail(.subjectMismatch, "sub: \(message)")
        }
    }
}
