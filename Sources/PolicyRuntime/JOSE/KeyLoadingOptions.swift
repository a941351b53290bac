/// Limits applied when keys are loaded from JWKs, PEM or DER.
public struct KeyLoadingOptions: Sendable, Hashable {
    /// The smallest RSA modulus accepted, in bits (policy `min_rsa_bits`; default 2048).
    public var minimumRSABits: Int

    /// Creates options; the defaults follow NIST SP 800-131A.
    public init(minimumRSABits: Int = 2048) {
        self.minimumRSABits = minimumRSABits
    }

    /// The defaults.
    public static let standard = KeyLoadingOptions()
}
