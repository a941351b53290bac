/// The token section's shared settings as rules read them: whether tokens are signed, and the
/// algorithms allowed.
extension RuleCompiler {
    /// Whether the section declares `format: jwe`: tokens encrypted, never signed.
    public var tokensAreUnsigned: Bool { setting("format")?.scalar?.string == TokenEnvelope.Format.jwe.rawValue }

    /// Refuses a signature setting in a `format: jwe` section, where nothing is signed.
    public mutating func refuseForUnsignedTokens(_ key: String, _ node: YAMLNode, instead: String) {
        error(.conflict, "'\(key)' needs signed tokens, and format jwe tokens are only encrypted", at: node,
              hint: "\(instead), or use format: nested for a signed token inside a JWE")
    }

    /// The section's `algorithms`, read without reporting (the `algorithms` rule reports).
    public mutating func allowedAlgorithms() -> [JWSAlgorithm] {
        guard let node = setting("algorithms") else { return [] }
        return quietly { $0.literalStrings(node, what: "'algorithms'") ?? [] }.compactMap { try? JWSAlgorithm(name: $0) }
    }
}

extension RuleOutcome {
    /// For a rule that needs a signed token and has none. The compiler refuses such rules under
    /// `format: jwe`, so this guards rather than decides.
    public static var unsignedToken: RuleOutcome { .fail(.malformedToken, "the token is not signed") }
}
