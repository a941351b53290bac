@_spi(RuleAuthoring) import PolicyJOSE

/// `algorithms`: the header's `alg` must be one the policy allows. Required in every token section.
/// A token that nests others has each signed layer around the claims' token checked as well,
/// against `outer_layers.algorithms` when the policy sets it.
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
    /// The algorithms of the signed layers around the claims' token.
    let outerAllowed: [JWSAlgorithm]

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
        let outer = compiler.tokenSettings.outerLayers.algorithms ?? allowed
        return [compiler.finish(AlgorithmsRule(allowed: allowed, outerAllowed: outer), at: node.location)]
    }

    var explanation: String {
        "the header's alg is one of \(allowed.map(\.rawValue).joined(separator: ", "))"
            + (outerAllowed == allowed ? "" : "; a signed token around it: one of \(outerAllowed.map(\.rawValue).joined(separator: ", "))")
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        // The token is not bound to a local: that retained and released it around each call.
        guard let algorithm = context.token?.signatureAlgorithm else { return .unsignedToken }
        guard allowed.contains(algorithm) else {
            return .fail(.algNotAllowed, "alg \(algorithm.rawValue) is not allowed; the policy allows \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
        /// The pass, its trace detail written only when tracing.
        func passed(_ around: @autoclosure () -> String = "") -> RuleOutcome {
            .pass(context.detail("alg \(algorithm.rawValue) in [\(allowed.map(\.rawValue).joined(separator: ", "))]" + around()))
        }
        guard context.token!.isWrapped else { return passed() }
        let layers = context.token!.outerLayers
        for (index, layer) in layers.enumerated() {
            guard let outer = layer.signature?.algorithm, !outerAllowed.contains(outer) else { continue }
            let outerText = outerAllowed.map(\.rawValue).joined(separator: ", ")
            return .fail(.algNotAllowed, "\(TokenLayer.describe(index, of: layers.count + 1)) is signed with alg \(outer.rawValue), which is not allowed; the policy allows \(outerText) around the claims")
        }
        return passed("; around it \(layers.compactMap { $0.signature?.algorithm.rawValue }.joined(separator: ", "))")
    }
}
