@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the time rules.
extension FindingCode {
    /// `exp` has passed (beyond the leeway).
    package static let tokenExpired = FindingCode("token_expired", .mismatch)
    /// `nbf` is still ahead (beyond the leeway).
    package static let tokenNotYetValid = FindingCode("token_not_yet_valid", .mismatch)
    /// `iat` is in the future (beyond the leeway).
    package static let iatInFuture = FindingCode("iat_in_future", .mismatch)
    /// `iat` is older than `max_age` allows.
    package static let tokenTooOld = FindingCode("token_too_old", .mismatch)
    /// `exp` minus `iat` exceeds `max_lifetime`.
    package static let lifetimeTooLong = FindingCode("lifetime_too_long", .mismatch)

    /// Every code of the time rules.
    package static let timeCodes: [FindingCode] = [
        .tokenExpired, .tokenNotYetValid, .iatInFuture, .tokenTooOld, .lifetimeTooLong,
    ]
}
