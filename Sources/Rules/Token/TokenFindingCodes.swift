public import PolicyRuntime

/// The finding codes of the token header rules.
extension FindingCode {
    /// The header's `typ` is not one the policy allows.
    public static let typNotAllowed = FindingCode("typ_not_allowed", .mismatch)
    /// A header parameter (or a request header) does not match its matcher.
    public static let headerMismatch = FindingCode("header_mismatch", .mismatch)

    /// Every code of the token header rules.
    public static let tokenHeaderCodes: [FindingCode] = [
        .typNotAllowed, .headerMismatch,
    ]
}
