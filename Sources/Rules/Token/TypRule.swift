import PolicyEngine

/// `typ`: the header's media type, compared case-insensitively with `application/` optional (RFC 7515 §4.1.9).
struct TypRule: Rule {
    static let key = "typ"
    static let summary = "the header's typ is one of the accepted media types"
    static let phase = RulePhase.header

    let accepted: [String]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let types = compiler.literalStrings(node, what: "'typ'") else { return [] }
        return [compiler.finish(TypRule(accepted: types), at: node.location)]
    }

    static func normalized(_ type: String) -> String {
        let lowered = type.lowercased()
        return lowered.hasPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }

    var explanation: String { "the header's typ is \(RuleCompiler.show(accepted)) (case-insensitive, application/ optional)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let typ = context.decoded.header.object["typ"] else {
            return .fail(.typNotAllowed, "the header has no typ; expected \(RuleCompiler.show(accepted))")
        }
        guard case let .string(type) = typ else {
            return .fail(.typNotAllowed, "the header's typ must be a string, found \(typ.typeName)")
        }
        guard accepted.map(TypRule.normalized).contains(TypRule.normalized(type)) else {
            return .fail(.typNotAllowed, "typ \"\(type)\" is not accepted; expected \(RuleCompiler.show(accepted))")
        }
        return .pass(context.detail("typ \"\(type)\" accepted"))
    }
}
