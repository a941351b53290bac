/// `algorithms`: the header's `alg` must be one the policy allows. Required in every token section.
///
/// The engine's own rule, with `keys`: which algorithms may verify is part of verification, so
/// every registry's `token` section has it.
struct AlgorithmsRule: Rule {
    static let key = "algorithms"
    static let summary = "the header's alg is one of the allowed algorithms"
    static let phase = RulePhase.header
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
        guard let names = compiler.literalStrings(node, what: "'algorithms'") else { return [] }
        var allowed: [JWSAlgorithm] = []
        for (index, name) in names.enumerated() {
            let item = node.items?[index] ?? node
            if name.lowercased() == "none" {
                compiler.error(.invalidValue, "'none' is never accepted: an unsigned token proves nothing", at: item)
                continue
            }
            guard let algorithm = try? JWSAlgorithm(name: name) else {
                compiler.error(.invalidValue, "unknown algorithm '\(name)'", at: item,
                               hint: Suggestion.didYouMean(name, among: JWSAlgorithm.allCases.map(\.rawValue))
                                   ?? "use one of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            if !allowed.contains(algorithm) { allowed.append(algorithm) }
        }
        guard allowed.count == names.count else { return [] }
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
