@_spi(RuleAuthoring) import PolicyJOSE

/// `keys`: the signature verifies with a key from the policy's key source. Required; a verdict is
/// valid only when this rule verified. A key is tried only for its own algorithm family; with a
/// `kid` only that key is tried, without one every key that can verify the `alg`. A token that
/// nests others verifies too only when every signed layer around the claims' token verifies,
/// with `outer_layers.keys` when the policy sets it.
///
/// The engine's own rule, part of every registry's `token` section (`RuleRegistry`): it selects
/// keys (`KeySource.selectKeys`), verifies through the signature cache, records the key set's
/// freshness, and is the one place a signature becomes a `VerificationProof`.
struct SignatureRule: Rule {
    static let key = "keys"
    static let summary = "the signature verifies with a key from the key source"
    static let phase = RulePhase.signature
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.signatureInvalid, .certificateUntrusted, .kidUnknown, .keyPublishedLater, .keysBeforeHistory, .kidMissing,
                                              .keyUnavailable, .layerMissing]
    static let argumentShape: ArgumentShape = .keySource
    static let runsByDefault = true

    let source: KeySource
    let allowed: [JWSAlgorithm]
    /// The key source of the signed layers around the claims' token, when not `source`.
    let outerSource: KeySource?
    /// The algorithms of the signed layers around the claims' token.
    let outerAllowed: [JWSAlgorithm]
    /// Where `outer_layers` is written, when it requires a signed layer around the claims' token.
    let outerRequired: SourceLocation?

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
        let allowed = compiler.tokenSettings.algorithms ?? []
        compiler.warnUnverifiable(source, algorithms: allowed, at: node)
        let outer = compiler.tokenSettings.outerLayers
        return [compiler.finish(SignatureRule(source: source, allowed: allowed, outerSource: outer.keys, outerAllowed: outer.algorithms ?? allowed,
                                              outerRequired: outer.required ? outer.location : nil),
                                at: node.location)]
    }

    var reportableCodes: [FindingCode] {
        let codes = Self.codes(source, allowed) + (outerRequired == nil ? [] : [.layerMissing])
        guard outerSource != nil || outerAllowed != allowed else { return codes }
        let outer = Self.codes(outerSource ?? source, outerAllowed)
        return Self.findingCodes.filter { codes.contains($0) || outer.contains($0) }
    }

    /// What verifying with `source` for `allowed` algorithms may report.
    private static func codes(_ source: KeySource, _ allowed: [JWSAlgorithm]) -> [FindingCode] {
        var codes: [FindingCode] = [.signatureInvalid]
        if source.certificateTrust != nil { codes.append(.certificateUntrusted) }
        if source.remote != nil || source.history != nil || source.localKeys?.selectsByKid == true { codes.append(.kidUnknown) }
        if source.history != nil { codes += [.keyPublishedLater, .keysBeforeHistory] }
        if source.requireKid { codes.append(.kidMissing) }
        // No usable key: a source out of reach, an x5c leaf of another family, an allowed
        // algorithm no local key verifies, or a kid naming a key that cannot verify one.
        let unavailable = switch source.origin {
        case .remote, .history, .tokenCertificate: true
        case let .local(keys):
            source.certificateTrust != nil || allowed.contains { algorithm in !keys.keys.contains { $0.canVerify(algorithm) } }
                || (keys.selectsByKid && keys.keys.contains { key in allowed.contains { !key.canVerify($0) } })
        }
        return unavailable ? codes + [.keyUnavailable] : codes
    }

    var explanation: String {
        var text = "the signature verifies with a key from \(source.description)"
        switch source.origin {
        case let .local(keys): text += " [\(keys.keys.map { $0.kid ?? "(no kid)" }.joined(separator: ", "))]"
        case let .history(history, _):
            text += " as of the evaluation time, from the \(history.snapshots.count) snapshot\(history.snapshots.count == 1 ? "" : "s") in \(history.directory)"
                + (history.grace == .zero ? "" : " (a retired key counts \(Int(history.grace.seconds)) s more)")
        case let .remote(remote):
            text += " (cached \(Int(remote.cacheTTL.seconds)) s, refetched on an unknown kid at most every \(Int(remote.minRefreshInterval.seconds)) s, served stale up to \(Int(remote.staleIfError.seconds)) s while it fails)"
        case .tokenCertificate:
            text = "the signature verifies with the leaf key of the token's x5c chain"
        }
        if source.requireKid { text += ", chosen by kid (required)" }
        if let trust = source.certificateTrust {
            text += source.localKeys == nil && source.remote == nil
                ? ", once the chain verifies to \(trust.file) at the evaluation time"
                : "; a token carrying x5c is verified with its leaf key once the chain verifies to \(trust.description)"
        }
        if let outerSource { text += "; a signed token around it, with a key from \(outerSource.description)" }
        if outerRequired != nil { text += "; the token must be wrapped in one (outer_layers)" }
        return text
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        // A token without layers (most) is checked without binding the token to a local, which
        // retained and released it around every call.
        guard let algorithm = context.token?.signatureAlgorithm else { return .unsignedToken }
        guard allowed.contains(algorithm) else {
            return .blocked("alg \(algorithm.rawValue) is not allowed (see token.algorithms); the signature was not checked")
        }
        guard outerRequired != nil || context.token!.isWrapped else { return verifyUnwrapped(context.token!, context) }
        let token = context.token!
        let layers = token.outerLayers
        var around: [(layer: Int, verified: Verified)] = []
        if let required = outerRequired, !layers.contains(where: { $0.signature != nil }) {
            let signer = outerSource.map { " signed with a key from \($0.description)" } ?? ""
            return .fail(.layerMissing, "the token is not wrapped in a signed token, and outer_layers (\(required)) requires one\(signer)")
        }
        if !layers.isEmpty {
            switch verifyOuterLayers(layers, context) {
            case let .success(verified): around = verified
            case let .failure(refusal): return refusal.outcome
            }
        }
        switch verify(token.jws!, digest: token.signedBytesDigest, with: source, context) {
        case let .failure(failure):
            return .fail(failure.code, layers.isEmpty ? failure.message : "the claims' token (layer \(layers.count + 1)): \(failure.message.text)")
        case let .success(verified):
            return .verified(by: VerificationProof(key: verified.key),
                             detail: context.detail(([verified.description] + around.map { layer, verified in
                                 "\(TokenLayer.describe(layer, of: layers.count + 1)): \(verified.description)"
                             }).joined(separator: "; ")))
        }
    }

    /// The outcome for `token`, which has no layers around it (most tokens). A parameter, not
    /// read from the context where used: the JWS of a token read from another object's field
    /// was copied (a retain and release of each of its references), of one passed in it is not.
    private func verifyUnwrapped(_ token: DecodedToken, _ context: EvaluationContext) -> RuleOutcome {
        switch verify(token.jws!, digest: token.signedBytesDigest, with: source, context) {
        case let .failure(failure): return .fail(failure.code, failure.message)
        // Not `context.detail`: its closure retained the key even when not tracing.
        case let .success(verified): return .verified(by: VerificationProof(key: verified.key), detail: context.tracing ? verified.description : nil)
        }
    }

    /// Why a layer around the claims' token failed, as the rule's outcome.
    private struct LayerRefusal: Error {
        let outcome: RuleOutcome
    }

    /// Verifies each signed layer of `layers` with the outer source and algorithms; apart from
    /// the claims' token's check, so that a token without layers pays nothing for them.
    private func verifyOuterLayers(_ layers: [TokenLayer], _ context: EvaluationContext) -> Result<[(layer: Int, verified: Verified)], LayerRefusal> {
        var verified: [(layer: Int, verified: Verified)] = []
        for (index, layer) in layers.enumerated() {
            guard let outer = layer.signature else { continue }
            let layerName = TokenLayer.describe(index, of: layers.count + 1)
            guard outerAllowed.contains(outer.algorithm) else {
                return .failure(LayerRefusal(outcome: .blocked("\(layerName) is signed with alg \(outer.algorithm.rawValue), which is not allowed; the signature was not checked")))
            }
            switch verify(outer, digest: nil, with: outerSource ?? source, context) {
            case let .failure(failure): return .failure(LayerRefusal(outcome: .fail(failure.code, "\(layerName): \(failure.message.text)")))
            case let .success(layerVerified): verified.append((index, layerVerified))
            }
        }
        return .success(verified)
    }

    /// A signature that verified.
    private struct Verified {
        let algorithm: JWSAlgorithm
        let key: VerifiedKey

        /// How the trace describes it: built only when tracing.
        var description: String {
            "verified \(algorithm.rawValue) with \(key.kid.map { "kid '\($0)'" } ?? "a key without kid") from \(key.source)"
                + (key.freshness == .stale ? " from a stale key set (the source is failing)" : "")
        }
    }

    private struct Failure: Error {
        let code: FindingCode
        let message: FindingMessage
    }

    /// `jws` verified with a key of `source`; `digest` is its signed bytes' hash if decoding took it.
    @inline(__always)
    private func verify(_ jws: CompactJWS, digest: ContentDigest?, with source: KeySource, _ context: EvaluationContext) -> Result<Verified, Failure> {
        let kid = jws.keyID
        switch source.selectKeys(for: jws, at: context.now.seconds, keySets: context.keySets) {
        case let .refused(refusal):
            return .failure(Failure(code: Self.code(refusal), message: FindingMessage(refusal.message)))
        case let .keys(candidates, freshness, shown, keySet, snapshot, proofs):
            guard let position = context.verifyingKey(jws, digest: digest, among: candidates, keySet: keySet) else {
                return .failure(Failure(code: .signatureInvalid,
                                        message: "the \(jws.algorithm.rawValue) signature does not verify with \(candidates.count == 1 ? "the key" : "any of \(candidates.count) keys")\(kid.map { " for kid '\($0)'" } ?? "") from \(shown)"))
            }
            let key = proofs?[position] ?? VerifiedKey(kid: candidates[position].kid, source: shown, freshness: freshness, snapshot: snapshot)
            return .success(Verified(algorithm: jws.algorithm, key: key))
        }
    }

    static func code(_ refusal: KeyRefusal) -> FindingCode {
        switch refusal {
        case .certificateUntrusted: .certificateUntrusted
        case .kidUnknown: .kidUnknown
        case .kidMissing: .kidMissing
        case .unavailable: .keyUnavailable
        case .beforeHistory: .keysBeforeHistory
        case .publishedLater: .keyPublishedLater
        }
    }
}
