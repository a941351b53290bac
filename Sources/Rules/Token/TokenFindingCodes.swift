@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the token header rules.
extension FindingCode {
    /// The header's `typ` is not one the policy allows.
    package static let typNotAllowed = FindingCode("typ_not_allowed", .mismatch)
    /// A header parameter (or a request header) does not match its matcher.
    package static let headerMismatch = FindingCode("header_mismatch", .mismatch)

    /// Every code of the token header rules.
    package static let tokenHeaderCodes: [FindingCode] = [
        .typNotAllowed, .headerMismatch,
    ]
}
