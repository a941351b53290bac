public import PolicyRuntime

/// The finding codes of the time rules.
extension FindingCode {
    /// `exp` has passed (beyond the leeway).
    public static let tokenExpired = FindingCode("token_expired", .mismatch)
    /// `nbf` is still ahead (beyond the leeway).
    public static let tokenNotYetValid = FindingCode("token_not_yet_valid", .mismatch)
    /// `iat` is in the future (beyond the leeway).
    public static let iatInFuture = FindingCode("iat_in_future", .mismatch)
    /// `iat` is older than `max_age` allows.
    public static let tokenTooOld = FindingCode("token_too_old", .mismatch)
    /// `exp` minus `iat` exceeds `max_lifetime`.
    public static let lifetimeTooLong = FindingCode("lifetime_too_long", .mismatch)

    /// Every code of the time rules.
    public static let timeCodes: [FindingCode] = [
        .tokenExpired, .tokenNotYetValid, .iatInFuture, .tokenTooOld, .lifetimeTooLong,
    ]
}
