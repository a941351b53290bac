@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// `dpop`: the request carries one DPoP proof (RFC 9449 §4.3) that the client made for this
/// request with the key its access token is bound to: `typ` `dpop+jwt`, an allowed asymmetric
/// `alg`, a public `jwk` its signature verifies with, `htm` and `htu` naming this request, a
/// recent `iat`, the access token's hash in `ath`, and a `jti` not used before (recorded in the
/// evaluation's replay store until the proof expires).
///
/// Compiles to up to three rules: this one, the token's binding to the proof's key
/// (`dpop.binding`, when the policy judges a token) and the server nonce (`dpop.nonce`, so an
/// absent nonce input skips only that check).
struct DPoPRule: Rule {
    static let key = "dpop"
    static let summary = "the request carries a DPoP proof made for it with the key its token is bound to (RFC 9449)"
    static let phase = RulePhase.signature
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = FindingCode.dpopCodes
    static let argumentShape: ArgumentShape = .mapping([
        ("algorithms", .someOf(DPoPSettings.defaultAlgorithms.map(\.rawValue)), "the algorithms a proof may be signed with (default: every asymmetric one)"),
        ("max_age", .duration, "how long after its iat a proof is accepted (default 60s)"),
        ("leeway", .duration, "clock skew allowed on the proof's iat (default 5s)"),
        ("nonce", .string, "the server nonce the proof must carry (RFC 9449 §8)"),
        ("origins", .strings, "the origins (https://host[:port]) a proof's htu may name; default: the request's own"),
        ("required", .boolean, "whether every request must carry a proof (default true)"),
    ], required: [])

    let settings: DPoPSettings

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let settings = compiler.dpopSettings(node) else { return [] }
        var rules = [compiler.finish(DPoPRule(settings: settings), id: nil, at: node.location, inputs: [])]
        if compiler.policyJudgesToken {
            rules.append(compiler.finish(DPoPBindingRule(required: settings.required), id: "binding", at: node.location, inputs: []))
        }
        if let nonce = settings.nonce {
            rules.append(compiler.finish(DPoPNonceRule(nonce: nonce), id: "nonce", at: node["nonce"]?.location ?? node.location, inputs: nonce.inputNames))
        }
        return rules
    }

    var reportableCodes: [FindingCode] {
        FindingCode.dpopCodes.filter { ![.dpopTokenUnbound, .dpopBindingMismatch, .useDPoPNonce].contains($0) }
    }

    var explanation: String {
        "the request carries a DPoP proof (\(settings.algorithms.map(\.rawValue).joined(separator: ", ")), at most \(TimeText.duration(settings.maxAge)) old)"
            + (settings.required ? "" : " when it presents a DPoP-bound token")
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let request = context.request
        let proof: DPoPProof
        switch request.dpopProof {
        case let .success(read)?: proof = read
        case let .failure(problem)?: return .fail(problem.code, FindingMessage(problem.message))
        case nil:
            if settings.required { return .fail(.dpopProofMissing, "the request has no DPoP header, and the policy requires a DPoP proof (RFC 9449)") }
            if case let .success(credential) = request.credential, credential.scheme == .dpop {
                return .fail(.dpopProofMissing, "the Authorization header presents a DPoP token, and the request has no DPoP proof")
            }
            return .pass(context.detail("no DPoP proof (optional)"))
        }
        guard settings.algorithms.contains(proof.jws.algorithm) else {
            return .fail(.dpopAlgNotAllowed, "the DPoP proof is signed with \(proof.jws.algorithm.rawValue); the policy allows \(settings.algorithms.map(\.rawValue).joined(separator: ", "))")
        }
        do {
            guard try proof.jws.verify(with: proof.key) else {
                return .fail(.dpopSignatureInvalid, "the DPoP proof's signature does not verify with the key in its header")
            }
        } catch {
            return .fail(.dpopKeyInvalid, "the DPoP proof's jwk cannot verify \(proof.jws.algorithm.rawValue): \(error.message)")
        }
        guard let method = request.method else { return .blocked("the request has no method (see request.structure)") }
        guard proof.htm.isExactly(method) else {
            return .fail(.dpopMethodMismatch, "the DPoP proof was made for \(proof.htm) (htm), and the request is \(method)")
        }
        if let problem = urlProblem(proof.htu, request) { return .fail(.dpopURLMismatch, FindingMessage(problem)) }
        let now = context.now.seconds
        if proof.issuedAt > now + Double(settings.leeway) {
            return .fail(.dpopIssuedInFuture, "the DPoP proof was issued at \(UnixTime(seconds: proof.issuedAt)), in the future of \(context.now) beyond the \(settings.leeway)s leeway")
        }
        if now - proof.issuedAt > Double(settings.maxAge + settings.leeway) {
            return .fail(.dpopProofTooOld, "the DPoP proof was issued at \(UnixTime(seconds: proof.issuedAt)), more than \(TimeText.duration(settings.maxAge)) (+\(settings.leeway)s leeway) before \(context.now)")
        }
        if case let .success(credential) = request.credential {
            guard let ath = proof.ath else {
                return .fail(.dpopAccessTokenHashMissing, "the request presents an access token, and the DPoP proof carries no ath (its hash)")
            }
            guard ConstantTime.equals(ath, DPoPProof.accessTokenHash(credential.token)) else {
                return .fail(.dpopAccessTokenHashMismatch, "the DPoP proof's ath is not the hash of the access token the request presents")
            }
        }
        let expires = settings.expiry(of: proof)
        let once = OneTimeValue(proof.jti, scope: "dpop jti \(proof.thumbprint)", expires: expires, replayCode: .dpopProofReplayed,
                                what: "the DPoP proof's jti")
        return .pass(context.detail("DPoP proof \(proof.jws.algorithm.rawValue) by key \(proof.thumbprint) for \(proof.htm) \(proof.htu), issued \(UnixTime.iso8601(proof.issuedAt))"),
                     oneTimeValues: [once])
    }

    /// Why `htu` does not name the request: not an absolute URL, a query or fragment, another
    /// origin, or another path once both are normalised as the section's path rules normalise.
    private func urlProblem(_ htu: String, _ request: RequestSubject) -> String? {
        let target: RequestTarget
        switch RequestTarget.parse(htu) {
        case let .success(parsed): target = parsed
        case let .failure(problem): return "the DPoP proof's htu is not a URL: \(problem.message)"
        }
        guard let origin = target.origin else { return "the DPoP proof's htu is not an absolute http(s) URL" }
        guard !target.hasQueryOrFragment else { return "the DPoP proof's htu has a query or fragment, which RFC 9449 §4.2 leaves out" }
        if let origins = settings.origins {
            guard origins.contains(origin) else {
                return "the DPoP proof was made for \(origin), which is not among the policy's origins (\(origins.map(\.description).joined(separator: ", ")))"
            }
        } else {
            guard let own = request.origin else {
                return "the request names no origin to compare the proof's htu with: send an absolute URL, or list the service's origins in dpop.origins"
            }
            guard own == origin else { return "the DPoP proof was made for \(origin), and the request was sent to \(own)" }
        }
        guard let raw = request.path else { return "the request's URL does not decode (see request.structure)" }
        let path: String
        switch RequestPath.normalize(Substring(raw), settings.normalization) {
        case let .success(normalized): path = normalized
        case let .failure(problem): return "the request's path cannot be compared with htu: \(problem.message)"
        }
        switch target.normalizedPath(settings.normalization) {
        case let .success(proofPath) where proofPath.isExactly(path): return nil
        case let .success(proofPath): return "the DPoP proof was made for path \(proofPath), and the request's is \(path)"
        case let .failure(problem): return "the DPoP proof's htu path cannot be compared: \(problem.message)"
        }
    }
}
