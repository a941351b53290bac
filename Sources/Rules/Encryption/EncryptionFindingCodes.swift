@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the encrypted-field rules.
extension FindingCode {
    /// A field listed in `encrypted_fields` is not a well-formed compact JWE.
    package static let fieldNotEncrypted = FindingCode("field_not_encrypted", .mismatch)
    /// An encrypted field uses a JWE `alg` or `enc` the policy does not allow (RSA1_5 included).
    package static let encryptionNotAllowed = FindingCode("encryption_not_allowed", .mismatch)

    /// Every code of the encrypted-field rules.
    package static let encryptionCodes: [FindingCode] = [
        .fieldNotEncrypted, .encryptionNotAllowed,
    ]
}
