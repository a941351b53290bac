@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `require`: each listed claim path is present (any value, `null` included).
struct RequireRule: Rule {
    static let key = "require"
    static let summary = "each listed claim is present"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.claimMissing]
    static let argumentShape: ArgumentShape = .strings

    let path: ClaimPath

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let names = compiler.literalStrings(node, what: "'require'") else { return [] }
        return names.enumerated().compactMap { index, name in
            let item = node.items?[index] ?? node
            guard let path = compiler.claimPath(name, at: item) else { return nil }
            return compiler.finish(RequireRule(path: path), id: path.description, at: item.location)
        }
    }

    var explanation: String { "claim \(path) is present" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        path.value(in: context.decoded.claims) == nil ? .fail(.claimMissing, "the token has no \(path) claim") : .pass(context.detail("\(path) present"))
    }
}
