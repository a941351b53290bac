import PolicyEngine

/// `keys`: the signature verifies with a key from the policy's key source. Required; a verdict is
/// valid only when this rule verified. A key is tried only for its own algorithm family; with a
/// `kid` only that key is tried, without one every key that can verify the `alg`.
struct SignatureRule: Rule {
    static let key = "keys"
    static let summary = "the signature verifies with a key from the key source"
    static let phase = RulePhase.signature
    static let runsByDefault = true

    let source: KeySource
    let allowed: [JWSAlgorithm]

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        if compiler.tokensAreUnsigned {
            if let node { compiler.refuseForUnsignedTokens(key, node, instead: "name the decryption key under decryption.key") }
            return []
        }
        guard let node else {
            compiler.error(.missingKey, "the token section needs 'keys'", at: compiler.section,
                           hint: "name where verification keys come from, e.g. keys: {jwks_file: keys/issuer.jwks.json}")
            return []
        }
        guard let source = compiler.keySource(node) else { return [] }
        let allowed = compiler.allowedAlgorithms()
        for algorithm in allowed where !source.keys.keys.contains(where: { $0.canVerify(algorithm) }) {
            compiler.warning(.keySource, "no key from \(source.description) can verify \(algorithm.rawValue)", at: node,
                             hint: "tokens signed with \(algorithm.rawValue) will fail with key_unavailable")
        }
        return [compiler.finish(SignatureRule(source: source, allowed: allowed), at: node.location)]
    }

    var explanation: String {
        let kids = source.keys.keys.map { $0.kid ?? "(no kid)" }.joined(separator: ", ")
        return "the signature verifies with a key from \(source.description) [\(kids)]\(source.requireKid ? ", chosen by kid (required)" : "")"
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let jws = context.decoded.jws else { return .unsignedToken }
        guard allowed.contains(jws.algorithm) else {
            return .blocked("alg \(jws.algorithm.rawValue) is not allowed (see token.algorithms); the signature was not checked")
        }
        let kid = jws.header.kid
        let candidates: [JWK]
        do {
            candidates = try source.candidates(for: jws.algorithm, kid: kid)
        } catch {
            if let kid, error.code == .keyNotFound {
                return .fail(.kidUnknown, "no key with kid '\(kid)' in \(source.description)")
            }
            if kid == nil, source.requireKid {
                return .fail(.kidMissing, "the token has no kid, and \(source.description) requires one")
            }
            return .fail(.keyUnavailable, "\(error.message) (\(source.description))")
        }
        for key in candidates {
            if (try? jws.verify(with: key)) == true {
                return .verified(by: VerifiedKey(kid: key.kid, source: source.description),
                                 detail: context.detail("verified \(jws.algorithm.rawValue) with \(key.kid.map { "kid '\($0)'" } ?? "a key without kid")"))
            }
        }
        return .fail(.signatureInvalid, "the \(jws.algorithm.rawValue) signature does not verify with \(candidates.count == 1 ? "the key" : "any of \(candidates.count) keys")\(kid.map { " for kid '\($0)'" } ?? "") from \(source.description)")
    }
}
