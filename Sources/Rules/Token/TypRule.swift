@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `typ`: the header's media type, compared case-insensitively with `application/` optional (RFC 7515 §4.1.9).
struct TypRule: Rule {
    static let key = "typ"
    static let summary = "the header's typ is one of the accepted media types"
    static let phase = RulePhase.header
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.typNotAllowed]
    static let argumentShape: ArgumentShape = .strings

    let accepted: [String]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let types = compiler.literalStrings(node, what: "'typ'") else { return [] }
        return [compiler.finish(TypRule(accepted: types), at: node.location)]
    }

    var explanation: String { "the header's typ is \(RuleCompiler.show(accepted)) (case-insensitive, application/ optional)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let typ = context.decoded.header.object["typ"] else {
            return .fail(.typNotAllowed, "the header has no typ; expected \(shown: accepted)")
        }
        guard case let .string(type) = typ else {
            return .fail(.typNotAllowed, "the header's typ must be a string, found \(typ.typeName)")
        }
        guard accepted.map(JOSEHeader.normalizedMediaType).containsExactly(JOSEHeader.normalizedMediaType(type)) else {
            return .fail(.typNotAllowed, "typ \"\(type)\" is not accepted; expected \(shown: accepted)")
        }
        return .pass(context.detail("typ \"\(type)\" accepted"))
    }
}
