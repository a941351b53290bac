@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the hash rules.
extension FindingCode {
    /// `c_hash` is not the left half of the hash of the authorization code.
    package static let cHashMismatch = FindingCode("c_hash_mismatch", .mismatch)
    /// `at_hash` is not the left half of the hash of the access token.
    package static let atHashMismatch = FindingCode("at_hash_mismatch", .mismatch)

    /// Every code of the hash rules.
    package static let hashCodes: [FindingCode] = [
        .cHashMismatch, .atHashMismatch,
    ]
}
