internal import PolicyCrypto
@_spi(RuleAuthoring) package import PolicyJOSE

/// The OpenID Connect `c_hash` / `at_hash` value (OpenID Core §3.1.3.6, §3.3.2.11):
/// base64url of the left half of the hash of the ASCII value, with the hash of the token's `alg`.
package enum OIDCHash {
    /// The expected claim value for `value` under `algorithm`, or nil when the algorithm has no
    /// defined hash for this purpose (Ed448).
    package static func leftHalf(of value: String, algorithm: JWSAlgorithm) -> String? {
        guard let digest = algorithm.hashForOIDC else { return nil }
        let hash = digest.hash(Array(value.utf8))
        return Base64URL.encode(hash.prefix(hash.count / 2))
    }

    /// Whether `claim` equals the expected value, compared in constant time.
    package static func matches(claim: String, value: String, algorithm: JWSAlgorithm) -> Bool {
        guard let expected = leftHalf(of: value, algorithm: algorithm) else { return false }
        return ConstantTime.equals(Array(expected.utf8), Array(claim.utf8))
    }
}
