@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// What a `dpop` section asks of a request's proof (RFC 9449 §4.3), read once for its rules.
struct DPoPSettings: Sendable {
    /// The proof algorithms accepted when a policy lists none: every asymmetric JWS algorithm
    /// RFC 9449's deployments use. HMAC and `none` can never be listed.
    static let defaultAlgorithms: [JWSAlgorithm] = [.es256, .es384, .es512, .ps256, .ps384, .ps512, .rs256, .rs384, .rs512, .eddsa]
    static let keys = ["algorithms", "max_age", "leeway", "nonce", "origins", "required"]

    /// The algorithms a proof may be signed with.
    let algorithms: [JWSAlgorithm]
    /// How long after its `iat` a proof is accepted, in seconds (default 60).
    let maxAge: Int64
    /// Clock skew allowed on `iat` either way, in seconds (default 5).
    let leeway: Int64
    /// The server nonce the proof must carry, when set.
    let nonce: PolicyValue?
    /// The origins a proof's `htu` may name; nil compares it with the request's own origin.
    let origins: [RequestOrigin]?
    /// Whether every request must carry a proof (default true); false lets a bearer token that
    /// is not bound to a key through without one.
    let required: Bool
    /// How the request's path and `htu`'s are normalised before they are compared: as the
    /// section's path rules normalise.
    let normalization: PathNormalization

    /// How long a proof's `jti` must be remembered: until no clock within the leeway accepts it.
    func expiry(of proof: DPoPProof) -> UnixTime {
        UnixTime(seconds: proof.issuedAt + Double(maxAge + leeway))
    }
}

extension RuleCompiler {
    /// Reads a `dpop` mapping; nil after reporting what is wrong.
    mutating func dpopSettings(_ node: YAMLNode) -> DPoPSettings? {
        guard mapping(node, allowed: DPoPSettings.keys, what: "'dpop'") != nil else { return nil }
        var ok = true
        var algorithms = DPoPSettings.defaultAlgorithms
        if let list = node["algorithms"] {
            if let listed = jwsAlgorithms(list, what: "'dpop.algorithms'") {
                if let symmetric = listed.first(where: \.isSymmetric) {
                    error(.invalidValue, "'dpop.algorithms' lists \(symmetric.rawValue): a DPoP proof is signed with the client's key pair, and a shared secret proves nothing about the client",
                          at: list, hint: "list asymmetric algorithms such as ES256 or EdDSA")
                    ok = false
                } else if listed.isEmpty {
                    error(.invalidValue, "'dpop.algorithms' must list at least one algorithm", at: list)
                    ok = false
                }
                algorithms = listed
            } else {
                ok = false
            }
        }
        let maxAge = node["max_age"].map { duration($0, what: "'dpop.max_age'") } ?? 60
        let leeway = node["leeway"].map { duration($0, what: "'dpop.leeway'") } ?? 5
        if maxAge == 0, let at = node["max_age"] {
            error(.invalidValue, "'dpop.max_age' must be more than 0s: a proof is judged after it is made", at: at)
            ok = false
        }
        let required = node["required"].map { bool($0, what: "'dpop.required'") } ?? true
        var origins: [RequestOrigin]?
        if let list = node["origins"] {
            if let texts = literalStrings(list, what: "'dpop.origins'") {
                origins = []
                for (index, text) in texts.enumerated() {
                    let item = list.items?[index] ?? list
                    guard let origin = RequestOrigin(url: Substring(text)) else {
                        error(.invalidValue, "'\(text)' is not an origin: an http or https scheme, a host and an optional port, with no path", at: item,
                              hint: "write it as https://api.example.com")
                        ok = false
                        continue
                    }
                    origins?.append(origin)
                }
            } else {
                ok = false
            }
        }
        let nonce = node["nonce"].flatMap { stringValue($0, what: "'dpop.nonce'") }
        if node["nonce"] != nil, nonce == nil { ok = false }
        guard ok, let maxAge, let leeway, let required else { return nil }
        return DPoPSettings(algorithms: algorithms, maxAge: maxAge, leeway: leeway, nonce: nonce, origins: origins, required: required,
                            normalization: pathNormalization())
    }
}
