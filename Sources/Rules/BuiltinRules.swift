@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// The catalog of built-in rules, as one immutable registry.
package enum BuiltinRules {
    /// Rule types of the `token` section, in the order they are listed in docs/policy-format.md;
    /// the engine adds its own `algorithms` before them and `keys` after (verification).
    package static let tokenRules: [any Rule.Type] = [
        TypRule.self, HeaderRule.self, CritRule.self,
        RegisteredClaimTypesRule.self, IssuerRule.self, AudienceRule.self, TrustedAudiencesRule.self,
        AuthorizedPartyRule.self, SubjectRule.self, NonceRule.self,
        ExpiresRule.self, NotBeforeRule.self, IssuedAtRule.self, MaxLifetimeRule.self,
        CHashRule.self, AtHashRule.self, RequireRule.self, ClaimsRule.self, OnceRule.self, EmbeddedTokensRule.self,
    ]

    /// Keys of the `token` section that configure it rather than check something.
    package static let tokenSettings: [String: RuleRegistry.SectionSetting] = [
        "format": .init("jws (default), jwe or nested: how tokens are packaged", .oneOf(TokenEnvelope.Format.allCases.map(\.rawValue))),
        "decryption": .init("for jwe and nested: allowed JWE algorithms and encryptions, and the decryption key", .mapping([
            ("algorithms", .someOf(JWEKeyAlgorithm.allCases.map(\.rawValue)), "allowed JWE alg values"),
            ("encryption", .someOf(JWEContentEncryption.allCases.map(\.rawValue)), "allowed JWE enc values"),
            ("key", .keySource, "the private or secret key that decrypts"),
        ], required: ["algorithms", "encryption", "key"])),
        "signatures": .init("any (default), all, or a number N: for a JWS in general JSON serialization, whether the policy must hold for one signature, for every one, or for N made with distinct keys",
                            .anyOf([.oneOf(["any", "all"]), .integer(minimum: 1, maximum: TokenEnvelope.SignatureRequirement.mostSigners)])),
        "leeway": .init("clock skew allowed for exp, nbf and iat (default 60s)", .duration),
        "limits": .init("max_token_bytes, max_json_depth and max_layers for the presented token", .mapping([
            ("max_token_bytes", .integer(minimum: 1, maximum: nil), "the largest token accepted, in bytes"),
            ("max_json_depth", .integer(minimum: 1, maximum: nil), "the deepest nesting of the header and claims"),
            ("max_layers", .integer(minimum: 1, maximum: TokenLimits.mostLayers), "the most tokens nested in one (cty: JWT), itself included (default 3)"),
        ], required: [])),
        "outer_layers": .init("for tokens nested in signed tokens (cty: JWT): the keys and algorithms of the layers around the claims' token (default: keys and algorithms)", .mapping([
            ("keys", .keySource, "where the outer signatures' keys come from"),
            ("algorithms", .someOf(JWSAlgorithm.allCases.map(\.rawValue)), "the algorithms they may use"),
            ("required", .boolean, "whether a token must be wrapped in a signed layer (default true once outer_layers is written)"),
        ], required: [])),
    ]

    /// Rule types of the `pkce` section (RFC 7636), which reads inputs only.
    package static let pkceRules: [any Rule.Type] = [PKCEMethodRule.self, PKCEVerifierRule.self, PKCEChallengeRule.self]

    package static let pkceSettings: [String: RuleRegistry.SectionSetting] = [
        "methods": .init("allowed challenge methods (default [S256]; plain only if listed)", .someOf(["S256", "plain"])),
    ]

    /// Rule types of the `request` section: an HTTP request.
    package static let requestRules: [any Rule.Type] = [
        RequestStructureRule.self, MethodRule.self, PathRule.self, RequestHeadersRule.self, QueryRule.self, BodyRule.self,
        EncryptedFieldsRule.self, BearerRule.self, DPoPRule.self, CertificateBindingRule.self,
    ]

    package static let requestSettings: [String: RuleRegistry.SectionSetting] = [
        "path_normalization": .init("merge_slashes (default true), escaped_slashes (reject, keep or unescape; default reject) and path_parameters (reject or strip; default reject): how paths are normalised", .mapping([
            ("merge_slashes", .boolean, "whether // counts as / (default true)"),
            ("escaped_slashes", .oneOf(["reject", "keep", "unescape"]), "what %2F in a path does (default reject)"),
            ("path_parameters", .oneOf(["reject", "strip"]), "what ; in a path segment does (default reject; strip cuts ;... as servlet containers do)"),
        ], required: [])),
    ]

    /// Rule types of the `callback` section: an authorization response at the redirect URI.
    package static let callbackRules: [any Rule.Type] = [
        CallbackResponseRule.self, RedirectURIRule.self, CallbackStateRule.self, CallbackIssuerRule.self,
    ]

    package static let callbackSettings: [String: RuleRegistry.SectionSetting] = [
        "response_mode": .init("query (default) or fragment: where the response parameters are", .oneOf(["query", "fragment"])),
        "require_issuer": .init("true: the RFC 9207 iss parameter must be present (default false)", .boolean),
    ]

    /// Every finding code the engine and the built-in rules report (docs/policy-format.md §8).
    package static let findingCodes: [FindingCode] = FindingCode.engineCodes + FindingCode.tokenHeaderCodes + FindingCode.claimCodes
        + FindingCode.oidcCodes + FindingCode.timeCodes + FindingCode.hashCodes + FindingCode.requestCodes
        + FindingCode.encryptionCodes + FindingCode.oauthCodes + FindingCode.dpopCodes

    /// The JSON Schema of policies using the built-in rules (`policy-run schema`).
    package static var schema: JSONValue { PolicySchema(registry: registry, matcher: Matcher.schema).document }

    /// Every built-in rule, by section.
    package static let registry = RuleRegistry(sections: [
        RuleRegistry.Section(name: "token", rules: tokenRules, settings: tokenSettings, lints: TokenSectionLints.all),
        RuleRegistry.Section(name: "request", rules: requestRules, settings: requestSettings),
        RuleRegistry.Section(name: "callback", rules: callbackRules, settings: callbackSettings),
        RuleRegistry.Section(name: "pkce", rules: pkceRules, settings: pkceSettings, needsSubject: false),
    ])
}
