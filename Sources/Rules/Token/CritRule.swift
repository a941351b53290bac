@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `crit`: the extensions the policy understands; a token marking any other one critical fails
/// (RFC 7515 §4.1.11). Runs by default with nothing understood.
struct CritRule: Rule {
    static let key = "crit"
    static let summary = "every header parameter the token marks critical is one the policy understands"
    static let phase = RulePhase.header
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.critUnsupported]
    static let argumentShape: ArgumentShape = .anyOf([.string, .list(.string)])
    static let runsByDefault = true

    let understood: [String]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [compiler.finish(CritRule(understood: []), at: compiler.sectionLocation)] }
        if node.items?.isEmpty == true { return [compiler.finish(CritRule(understood: []), at: node.location)] }
        guard let names = compiler.literalStrings(node, what: "'crit'") else { return [] }
        return [compiler.finish(CritRule(understood: names), at: node.location)]
    }

    var explanation: String {
        understood.isEmpty ? "the token marks no header parameter critical" : "critical header parameters are among \(RuleCompiler.show(understood))"
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        if let unknown = context.decoded.firstCritical(notUnderstood: understood.containsExactly) {
            return .fail(.critUnsupported, "the token marks '\(unknown)' critical, which this policy does not understand")
        }
        return .pass(context.detail(context.decoded.header.critical.isEmpty ? "no crit" : "crit \(RuleCompiler.show(context.decoded.header.critical)) understood"))
    }
}

extension DecodedToken {
    /// The header's first critical parameter `isUnderstood` refuses, read in place (see
    /// `numericDate`).
    fileprivate func firstCritical(notUnderstood isUnderstood: (String) -> Bool) -> String? {
        header.firstCritical(notUnderstood: isUnderstood)
    }
}
