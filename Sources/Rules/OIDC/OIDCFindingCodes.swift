@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the OpenID Connect rules.
extension FindingCode {
    /// `aud` lists an audience the policy does not trust.
    package static let audienceUntrusted = FindingCode("audience_untrusted", .mismatch)
    /// `azp` is required (several audiences) and absent.
    package static let azpMissing = FindingCode("azp_missing", .absent)
    /// `azp` is not the expected client.
    package static let azpMismatch = FindingCode("azp_mismatch", .mismatch)
    /// `nonce` is absent or not the one the client sent.
    package static let nonceMismatch = FindingCode("nonce_mismatch", .mismatch)

    /// Every code of the OpenID Connect rules.
    package static let oidcCodes: [FindingCode] = [
        .audienceUntrusted, .azpMissing, .azpMismatch, .nonceMismatch,
    ]
}
