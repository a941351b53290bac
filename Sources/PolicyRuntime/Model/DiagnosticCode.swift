@_spi(RuleAuthoring) import PolicyJOSE

/// The stable identifier of a kind of policy problem, for tools and tests to match on.
public enum DiagnosticCode: String, Sendable, Codable, CaseIterable {
    /// The file could not be read, is too large, or is not UTF-8.
    case fileUnreadable = "file_unreadable"
    /// libyaml rejected the text (tabs in indentation, unbalanced brackets, ...).
    case yamlSyntax = "yaml_syntax"
    /// A mapping names the same key twice.
    case duplicateKey = "duplicate_key"
    /// Aliases expand past the node budget (a "billion laughs" file).
    case aliasBudget = "alias_budget"
    /// A tag other than the standard scalar tags.
    case unsupportedTag = "unsupported_tag"
    /// A key the policy format does not define.
    case unknownKey = "unknown_key"
    /// A value of the wrong shape or type.
    case wrongType = "wrong_type"
    /// A value of the right type that is not allowed (an unknown algorithm, a bad duration, ...).
    case invalidValue = "invalid_value"
    /// A key the format requires is absent.
    case missingKey = "missing_key"
    /// `${name}` names no declared input, or `${env:...}` appears anywhere but a `secret`.
    case undeclaredInput = "undeclared_input"
    /// `${env:NAME}` names a variable that is not set.
    case environmentMissing = "environment_missing"
    /// A policy names a file outside its roots, or a policy reference that is not a `.yaml` file:
    /// it is not read (SECURITY.md: a policy cannot read what it was not meant to).
    case fileOutsideRoots = "file_outside_roots"
    /// `extends` or a rule (`bearer: {policy: …}`) names a policy file that does not exist.
    case baseMissing = "base_missing"
    /// `extends` leads back to a policy already being extended.
    case extendsCycle = "extends_cycle"
    /// A base policy of a different subject (e.g. a request policy extending a token policy).
    case baseSubjectMismatch = "base_subject_mismatch"
    /// Settings that contradict each other (e.g. `c_hash` without an algorithm that fixes a hash).
    case conflict = "conflict"
    /// A key source that cannot be loaded: missing file, unusable keys.
    case keySource = "key_source"
    /// A regular expression that does not compile.
    case invalidPattern = "invalid_pattern"
    /// A plain scalar such as `yes` or `off` that YAML 1.1 tools read as a boolean (warning).
    case ambiguousScalar = "ambiguous_scalar"
    /// A setting that weakens security and is meant for tests only (warning).
    case insecureSetting = "insecure_setting"
    /// An issuer that is not an https URL: OIDC issuers are, and a typo here accepts nothing (warning).
    case issuerNotHTTPS = "issuer_not_https"
    /// A leeway over five minutes: expired tokens stay good that much longer (warning).
    case longLeeway = "long_leeway"
    /// A token section without `audience`: tokens the issuer minted for any other service pass (warning).
    case audienceMissing = "audience_missing"
    /// HMAC algorithms allowed beside public-key ones: the classic key-confusion setup (warning).
    case hmacWithPublicKeys = "hmac_with_public_keys"
    /// A `jwks_uri` on another host than the issuer (warning; silence it with a note when intended).
    case keysOffIssuerHost = "keys_off_issuer_host"
    /// A key URL whose host is a link-local address, a cloud metadata service or the unspecified
    /// address (error, unless `allow_internal`), or a private or loopback address over https
    /// (warning): a policy must not make the engine call into the network it runs in.
    case internalAddress = "internal_address"
    /// A matcher that no value can satisfy (warning).
    case neverPasses = "never_passes"
    /// An input the policy declares and no rule reads (warning).
    case inputUnused = "input_unused"
    /// `email` checked without `email_verified`, or the reverse (warning).
    case emailUnverified = "email_unverified"
}
