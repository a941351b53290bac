internal import PolicyCrypto

/// The random values one JWE encryption uses: the content key, the content IV, the IV of an
/// AES-GCM key wrap and the ECDH-ES ephemeral key.
///
/// Drawn fresh for every token; a test injects a vector's values to reproduce a JWE made by
/// another implementation byte for byte (its encrypted key and ciphertext).
struct JWERandomness {
    var contentKey: [UInt8]
    var iv: [UInt8]
    var keyWrapIV: [UInt8]
    var ephemeralKey: AsymmetricKey?

    /// Fresh values for a JWE of `algorithm` and `contentEncryption` to `key`.
    static func fresh(for algorithm: JWEKeyAlgorithm, contentEncryption: JWEContentEncryption, to key: JWK) throws(JOSEError) -> JWERandomness {
        JWERandomness(contentKey: SecureRandom.bytes(contentEncryption.keyByteCount), iv: SecureRandom.bytes(contentEncryption.ivByteCount),
                      keyWrapIV: SecureRandom.bytes(12), ephemeralKey: algorithm.isECDH ? try EphemeralKey.generate(like: key.type) : nil)
    }
}
