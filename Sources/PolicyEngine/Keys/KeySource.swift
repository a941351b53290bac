internal import Foundation

/// Verification keys a policy names, loaded once at compile time (POLICY-FORMAT.md section 4).
public struct KeySource: Sendable {
    /// The parsed keys; each is already restricted to its own algorithm family.
    public let keys: JWKSet
    /// How the source was written, for traces and `explain`: `jwks_file Policies/keys/x.json`.
    public let description: String
    /// Whether a token without `kid` is refused instead of trying every matching key.
    public let requireKid: Bool
    /// Whether a token's `kid` selects among the keys. A source in which no key has a kid (a
    /// lone PEM key) makes no claim about kids, so every key of the right family is tried.
    public let selectsByKid: Bool

    public init(keys: JWKSet, description: String, requireKid: Bool) {
        self.keys = keys
        self.description = description
        self.requireKid = requireKid
        selectsByKid = keys.keys.contains { $0.kid != nil }
    }

    /// The keys to try for a token's `alg` and `kid`; throws `key_not_found` when none may be.
    public func candidates(for algorithm: JWSAlgorithm, kid: String?) throws(JOSEError) -> [JWK] {
        try keys.candidates(for: algorithm, kid: selectsByKid ? kid : nil, requireKid: requireKid && kid == nil)
    }

    static let sourceKinds = ["jwks_file", "jwks", "jwk", "pem_file", "secret", "jwks_uri", "discovery"]
    static let options = ["min_rsa_bits", "require_kid", "cache_ttl", "min_refresh_interval", "timeout", "stale_if_error", "allow_http", "x5c"]
}

extension RuleCompiler {
    /// Reads a `keys` mapping and loads its keys now. Problems (a missing file, a JWKS with no
    /// usable key, an unset environment variable) are compile errors at the source's line.
    public mutating func keySource(_ node: YAMLNode, what: String = "'keys'") -> KeySource? {
        guard let pairs = mapping(node, allowed: KeySource.sourceKinds + KeySource.options, what: what) else { return nil }
        let kinds = pairs.filter { KeySource.sourceKinds.contains($0.name) }
        guard kinds.count == 1, let kind = kinds.first else {
            error(kinds.isEmpty ? .missingKey : .conflict,
                  "\(what) needs exactly one source (\(KeySource.sourceKinds.joined(separator: ", "))), found \(kinds.isEmpty ? "none" : kinds.map(\.name).joined(separator: " and "))",
                  at: node)
            return nil
        }
        var options = KeyLoadingOptions.standard
        var requireKid = false
        for option in pairs where KeySource.options.contains(option.name) {
            switch option.name {
            case "min_rsa_bits":
                guard case let .integer(bits)? = option.value.scalar?.value, (1024...16384).contains(bits) else {
                    error(.invalidValue, "'min_rsa_bits' must be an integer from 1024 to 16384", at: option.value)
                    continue
                }
                if bits < 2048 {
                    warning(.insecureSetting, "'min_rsa_bits: \(bits)' accepts RSA keys below 2048 bits", at: option.value, hint: "keep the default of 2048 outside tests")
                }
                options.minimumRSABits = Int(bits)
            case "require_kid":
                requireKid = bool(option.value, what: "'require_kid'") ?? false
            case "x5c":
                error(.invalidValue, "'x5c' trust anchors need certificate-chain verification, which comes with remote key sources", at: option.value)
            default:
                if kind.name != "jwks_uri", kind.name != "discovery" {
                    error(.conflict, "'\(option.name)' applies to remote key sources (jwks_uri, discovery), not '\(kind.name)'", at: option.value)
                }
            }
        }
        let value = kind.value
        let loaded: JWKSet?
        let shown: String
        switch kind.name {
        case "jwks_file", "pem_file":
            guard let path = environmentString(value, what: "'\(kind.name)'") else { return nil }
            let resolved = resolvePath(path, from: value)
            shown = "\(kind.name) \(resolved)"
            guard let data = FileManager.default.contents(atPath: resolved) else {
                error(.keySource, "cannot read the key file \(resolved)", at: value)
                return nil
            }
            guard data.count <= 1 << 20 else {
                error(.keySource, "the key file \(resolved) is larger than 1 MiB", at: value)
                return nil
            }
            loaded = kind.name == "jwks_file"
                ? keySet(value, shown) { () throws(JOSEError) in try JWKSet(json: Array(data), options: options) }
                : keySet(value, shown) { () throws(JOSEError) in
                    try JWKSet(keys: [JWK(pem: String(decoding: data, as: UTF8.self), options: options)])
                }
        case "jwks", "jwk":
            guard let json = jsonValue(value, what: "'\(kind.name)'"), case let .object(object) = json else {
                if value.pairs == nil { error(.wrongType, "'\(kind.name)' must be a mapping, found \(value.shapeDescription)", at: value) }
                return nil
            }
            shown = "inline \(kind.name)"
            loaded = kind.name == "jwks"
                ? keySet(value, shown) { () throws(JOSEError) in try JWKSet(object: object, options: options) }
                : keySet(value, shown) { () throws(JOSEError) in try JWKSet(keys: [JWK(object: object, options: options)]) }
        case "secret":
            guard value.scalar?.string?.contains("${env:") == true else {
                error(.invalidValue, "'secret' must come from the environment: secret: ${env:NAME}", at: value,
                      hint: "never write a secret into a policy file")
                return nil
            }
            guard let text = environmentString(value, what: "'secret'") else { return nil }
            shown = "secret \(value.scalar!.text)"
            let bytes: [UInt8]
            if text.hasPrefix("raw:") {
                bytes = Array(text.utf8.dropFirst(4))
            } else {
                do { bytes = try Base64URL.decode(text) } catch {
                    self.error(.keySource, "the secret is not base64url (\(error.message))", at: value, hint: "prefix it with raw: to use the text itself")
                    return nil
                }
            }
            loaded = keySet(value, shown) { () throws(JOSEError) in try JWKSet(keys: [JWK(secret: bytes)]) }
        default:
            error(.invalidValue, "'\(kind.name)' fetches keys over the network, which this build does not do yet; use jwks_file, jwks, jwk, pem_file or secret",
                  at: kind.value)
            return nil
        }
        guard let loaded else { return nil }
        return KeySource(keys: loaded, description: shown, requireKid: requireKid)
    }

    private mutating func keySet(_ node: YAMLNode, _ shown: String, _ load: () throws(JOSEError) -> JWKSet) -> JWKSet? {
        do {
            let set = try load()
            guard !set.keys.isEmpty else {
                let reasons = set.skipped.map { "key \($0.index)\($0.kid.map { " (\($0))" } ?? ""): \($0.error.message)" }
                error(.keySource, "\(shown) holds no usable key" + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")), at: node)
                return nil
            }
            for skipped in set.skipped {
                warning(.keySource, "\(shown): key \(skipped.index)\(skipped.kid.map { " (\($0))" } ?? "") is ignored: \(skipped.error.message)", at: node)
            }
            return set
        } catch {
            self.error(.keySource, "\(shown): \(error.message)", at: node)
            return nil
        }
    }
}
