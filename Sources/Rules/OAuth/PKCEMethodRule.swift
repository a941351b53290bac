@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `challenge_method`: the method the client declared is one the policy allows; a client that
/// declared none used `plain` (RFC 7636 §4.3), which is refused unless listed.
struct PKCEMethodRule: Rule {
    static let key = "challenge_method"
    static let summary = "the client's code_challenge_method is allowed (absent means plain)"
    static let phase = RulePhase.header
    static let findingCodes: [FindingCode] = [.pkceMethodNotAllowed]
    static let argumentShape: ArgumentShape = .string

    let declared: PolicyValue
    let allowed: [PKCEMethod]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let declared = compiler.stringValue(node, what: "'challenge_method'") else { return [] }
        return [compiler.finish(PKCEMethodRule(declared: declared, allowed: compiler.pkceMethods()), at: node.location, evenWithout: declared)]
    }

    /// A method written as a literal the policy allows can never be refused.
    var reportableCodes: [FindingCode] {
        if case let .literal(.string(name)) = declared, let method = PKCEMethod(rawValue: name), allowed.contains(method) { return [] }
        return Self.findingCodes
    }

    var explanation: String {
        "the declared method \(declared.display) is one of \(allowed.map(\.rawValue).joined(separator: ", ")) (absent means plain)"
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch PKCEMethod.declared(declared, in: context) {
        case let .invalid(message):
            return .fail(.pkceMethodNotAllowed, FindingMessage(message))
        case let .method(method) where !allowed.contains(method):
            let absent = context.resolve(declared) == nil ? " (no method was declared, which means plain)" : ""
            return .fail(.pkceMethodNotAllowed, "challenge method \(method.rawValue)\(absent) is not allowed; the policy allows \(allowed.map(\.rawValue).joined(separator: ", "))")
        case let .method(method):
            return .pass(context.detail("challenge method \(method.rawValue) is allowed"))
        }
    }
}
