@_spi(RuleAuthoring) public import PolicyJOSE

/// `outer_layers`: how the signed tokens around the claims' token are verified (RFC 7519 §7.2
/// step 8); each unset member is the token's own.
package struct OuterLayers: Sendable {
    /// Where their verification keys come from; nil: the token's `keys`.
    package var keys: KeySource?
    /// The algorithms they may be signed with; nil: the token's `algorithms`.
    package var algorithms: [JWSAlgorithm]?
    /// Whether a token must be wrapped in at least one signed layer: true once `outer_layers`
    /// is written (a gateway's signature that could be left off would prove nothing), unless
    /// it says `required: false`.
    package var required = false
    /// Where `outer_layers` is written.
    package var location: SourceLocation?
}

/// The `token` section's shared settings, compiled once before its rules and handed to each:
/// how tokens are packaged (`format`, `decryption`, `limits`), the algorithms allowed and the
/// clock skew allowed.
///
/// Rules read these typed values (`compiler.tokenSettings.leeway`) instead of parsing their
/// siblings' keys again; each setting's problems are reported once, by this stage.
@_spi(RuleAuthoring) public struct TokenSettings: Sendable {
    /// `format`, `decryption` and `limits`: what the decoder expects before any rule runs.
    package var envelope = TokenEnvelope.standard
    /// `algorithms`: the JWS algorithms a signature may use; nil when not written, or when the
    /// list has an error (reported here).
    public var algorithms: [JWSAlgorithm]?
    /// `leeway`: seconds of clock skew allowed for `exp`, `nbf` and `iat` (default 60).
    public var leeway: Int64 = 60
    /// `outer_layers`: the keys and algorithms of the signed tokens around the claims' token,
    /// when they differ from `keys` and `algorithms`.
    package var outerLayers = OuterLayers()

    /// The settings of a section that writes none.
    public static let standard = TokenSettings()

    /// Whether tokens are encrypted and never signed (`format: jwe`).
    public var tokensAreUnsigned: Bool { envelope.format == .jwe }

    /// Reads the settings of the policy's own section, or of a fragment inside `rules:`, which
    /// keeps the policy's envelope and may set its own `leeway` and `algorithms`.
    static func read(_ compiler: inout RuleCompiler, inheriting policy: TokenSettings?) -> TokenSettings {
        var settings = policy ?? TokenSettings()
        if policy == nil { settings.envelope = compiler.tokenEnvelope() }
        if let node = compiler.section["leeway"], let leeway = compiler.duration(node, what: "'leeway'") {
            settings.leeway = leeway
            if leeway > 300 {
                compiler.warning(.longLeeway, "'leeway: \(node.scalar?.text ?? "")' keeps expired tokens good for \(leeway / 60) minutes more", at: node,
                                 hint: "clocks drift seconds, not minutes: keep it at 5m or less")
            }
        }
        if let node = compiler.section["algorithms"] { settings.algorithms = compiler.jwsAlgorithms(node) }
        if policy == nil, let node = compiler.section["outer_layers"] { settings.outerLayers = outerLayers(node, envelope: settings.envelope, tokenAlgorithms: settings.algorithms, &compiler) }
        return settings
    }

    /// `outer_layers: {keys, algorithms}`, each optional.
    private static func outerLayers(_ node: YAMLNode, envelope: TokenEnvelope, tokenAlgorithms: [JWSAlgorithm]?, _ compiler: inout RuleCompiler) -> OuterLayers {
        var layers = OuterLayers(required: true, location: node.location)
        guard compiler.mapping(node, allowed: ["keys", "algorithms", "required"], what: "'outer_layers'") != nil else { return layers }
        if envelope.format == .jwe {
            compiler.refuseForUnsignedTokens("outer_layers", node, instead: "remove it")
            return layers
        }
        if let keys = node["keys"] { layers.keys = compiler.keySource(keys, what: "'outer_layers.keys'") }
        if let list = node["algorithms"] { layers.algorithms = compiler.jwsAlgorithms(list) }
        if let flag = node["required"] {
            if case let .bool(value)? = flag.scalar?.value { layers.required = value } else {
                compiler.error(.wrongType, "'required' must be true or false, found \(flag.shapeDescription)", at: flag)
            }
        }
        if let keys = layers.keys, let algorithms = layers.algorithms ?? tokenAlgorithms {
            compiler.warnUnverifiable(keys, algorithms: algorithms, at: node["keys"]!)
        }
        if envelope.limits.maxLayers == 1 {
            compiler.error(.conflict, "'outer_layers' verifies the tokens around the claims' token, and limits.max_layers: 1 allows none", at: node,
                           hint: "raise limits.max_layers, or remove outer_layers")
        }
        return layers
    }
}

extension RuleCompiler {
    /// The JWS algorithms `node` lists, each once; nil after reporting a name that is `none`
    /// or unknown.
    package mutating func jwsAlgorithms(_ node: YAMLNode, what: String = "'algorithms'") -> [JWSAlgorithm]? {
        guard let names = literalStrings(node, what: what) else { return nil }
        var allowed: [JWSAlgorithm] = []
        var refused = false
        for (index, name) in names.enumerated() {
            let item = node.items?[index] ?? node
            if name.lowercased() == "none" {
                error(.invalidValue, "'none' is never accepted: an unsigned token proves nothing", at: item)
                refused = true
                continue
            }
            guard let algorithm = try? JWSAlgorithm(name: name) else {
                error(.invalidValue, "unknown algorithm '\(name)'", at: item,
                      hint: Suggestion.didYouMean(name, among: JWSAlgorithm.allCases.map(\.rawValue))
                          ?? "use one of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
                refused = true
                continue
            }
            if !allowed.contains(algorithm) { allowed.append(algorithm) }
        }
        if !refused, allowed.contains(where: \.isHMAC), let asymmetric = allowed.first(where: { !$0.isHMAC }) {
            warning(.hmacWithPublicKeys, "\(what) allows HMAC beside \(asymmetric.rawValue): a public key must never serve as an HMAC secret",
                    at: node, hint: "allow one family; issuers sign with either a shared secret or a key pair, not both")
        }
        return refused ? nil : allowed
    }

    /// Whether the section declares `format: jwe`: tokens encrypted, never signed.
    public var tokensAreUnsigned: Bool { tokenSettings.tokensAreUnsigned }

    /// Refuses a signature setting in a `format: jwe` section, where nothing is signed.
    public mutating func refuseForUnsignedTokens(_ key: String, _ node: YAMLNode, instead: String) {
        error(.conflict, "'\(key)' needs signed tokens, and format jwe tokens are only encrypted", at: node,
              hint: "\(instead), or use format: nested for a signed token inside a JWE")
    }
}

extension RuleOutcome {
    /// For a rule that needs a signed token and has none. The compiler refuses such rules under
    /// `format: jwe`, so this guards rather than decides.
    public static var unsignedToken: RuleOutcome { .fail(.malformedToken, "the token is not signed") }
}
