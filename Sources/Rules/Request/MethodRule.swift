@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `method`: the request's method is one of those listed (compared exactly: HTTP methods are
/// case-sensitive, RFC 9110 §9.1).
struct MethodRule: Rule {
    static let key = "method"
    static let summary = "the method is one of those listed"
    static let phase = RulePhase.header
    static let findingCodes: [FindingCode] = [.methodNotAllowed]
    static let argumentShape: ArgumentShape = .strings

    let allowed: [String]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        let names = node.items == nil ? compiler.literalString(node, what: "'method'").map { [$0] } : compiler.literalStrings(node, what: "'method'")
        guard let names, !names.isEmpty else {
            if node.items?.isEmpty == true { compiler.error(.invalidValue, "'method' must name at least one method", at: node) }
            return []
        }
        for name in names where name != name.uppercased() {
            compiler.warning(.invalidValue, "method '\(name)' is not upper case; methods are compared exactly, so it will match only '\(name)'", at: node,
                             hint: "write \(name.uppercased())")
        }
        return [compiler.finish(MethodRule(allowed: names), at: node.location)]
    }

    var explanation: String { "the method is \(allowed.count == 1 ? allowed[0] : "one of " + allowed.joined(separator: ", "))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let method = context.request.method else { return .blocked("the request has no method (see request.structure)") }
        guard allowed.containsExactly(method) else {
            return .fail(.methodNotAllowed, "method \(method) is not allowed; expected \(allowed.joined(separator: " or "))")
        }
        return .pass(context.detail("method \(method)"))
    }
}
