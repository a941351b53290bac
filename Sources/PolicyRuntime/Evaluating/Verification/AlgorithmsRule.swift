@_spi(RuleAuthoring) import PolicyJOSE

/// `algorithms`: the header's `alg` must be one the policy allows. Required in every token section.
///
/// The engine's own rule, with `keys`: which algorithms may verify is part of verification, so
/// every registry's `token` section has it.
struct AlgorithmsRule: Rule {
    static let key = "algorithms"
    static let summary = "the header's alg is one of the allowed algorithms"
    static let phase = RulePhase.header
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.algNotAllowed]
    static let argumentShape: ArgumentShape = .someOf(JWSAlgorithm.allCases.map(\.rawValue))
    static let runsByDefault = true

    let allowed: [JWSAlgorithm]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        if compiler.tokensAreUnsigned {
            if let node { compiler.refuseForUnsignedTokens(key, node, instead: "list key-management algorithms under decryption.algorithms") }
            return []
        }
        guard let node else {
            compiler.error(.missingKey, "the token section needs 'algorithms'", at: compiler.section,
                           hint: "list the algorithms the issuer signs with, e.g. algorithms: [RS256]")
            return []
        }
        // The list was read, and its problems reported, with the section's settings.
        guard let allowed = compiler.tokenSettings.algorithms else { return [] }
        return [compiler.finish(AlgorithmsRule(allowed: allowed), at: node.location)]
    }

    var explanation: String { "the header's alg is one of \(allowed.map(\.rawValue).joined(separator: ", "))" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let algorithm = context.token?.jws?.algorithm else { return .unsignedToken }
        guard allowed.contains(algorithm) else {
            return .fail(.algNotAllowed, "alg \(algorithm.rawValue) is not allowed; the policy allows \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
        return .pass(context.detail("alg \(algorithm.rawValue) in [\(allowed.map(\.rawValue).joined(separator: ", "))]"))
    }
}
