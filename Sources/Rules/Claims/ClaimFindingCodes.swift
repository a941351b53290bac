@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the claim rules.
extension FindingCode {
    /// `iss` (or a callback's `iss`) is not the expected issuer.
    package static let issuerMismatch = FindingCode("issuer_mismatch", .mismatch)
    /// `aud` holds none of the expected audiences.
    package static let audienceMismatch = FindingCode("audience_mismatch", .mismatch)
    /// `sub` does not match.
    package static let subjectMismatch = FindingCode("subject_mismatch", .mismatch)
    /// A claim the policy requires is absent.
    package static let claimMissing = FindingCode("claim_missing", .absent)
    /// A claim has the wrong JSON type (a registered claim that is not what RFC 7519 says, or not what a matcher needs).
    package static let claimType = FindingCode("claim_type", .undecided)
    /// A claim does not match its matcher.
    package static let claimMismatch = FindingCode("claim_mismatch", .mismatch)
    /// The token in a claim fails the policy `embedded_tokens` names; its findings are nested.
    package static let embeddedTokenInvalid = FindingCode("embedded_token_invalid", .mismatch)

    /// A value `once` names was used before within its lifetime.
    package static let valueReplayed = FindingCode("value_replayed", .mismatch)

    /// Every code of the claim rules.
    package static let claimCodes: [FindingCode] = [
        .issuerMismatch, .audienceMismatch, .subjectMismatch, .claimMissing, .claimType, .claimMismatch, .embeddedTokenInvalid, .valueReplayed,
    ]
}
