/// Limits applied when keys are loaded from JWKs, PEM or DER.
package struct KeyLoadingOptions: Sendable, Hashable {
    /// The smallest RSA modulus accepted, in bits (policy `min_rsa_bits`; default 2048).
    package var minimumRSABits: Int

    /// Creates options; the defaults follow NIST SP 800-131A.
    package init(minimumRSABits: Int = 2048) {
        self.minimumRSABits = minimumRSABits
    }

    /// The defaults.
    package static let standard = KeyLoadingOptions()
}
