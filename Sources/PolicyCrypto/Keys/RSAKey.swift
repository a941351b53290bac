/// An RSA public or private key, held by OpenSSL.
///
/// Built once when a key is loaded; verifiers and signers made from it share the one `EVP_PKEY`.
public struct RSAKey: Sendable {
    let evp: EVPKey

    init(evp: EVPKey) {
        self.evp = evp
    }

    /// A key from its big-endian components; `privateParts` holds d, then optionally p, q, dp,
    /// dq, qi. A key with all CRT parts is checked for consistency.
    ///
    /// - Throws: `keyInvalid` when OpenSSL rejects the components.
    public init(modulus: [UInt8], exponent: [UInt8], privateParts: [[UInt8]]? = nil) throws(CryptoError) {
        evp = try EVPKey.rsa(modulus: modulus, exponent: exponent, privateParts: privateParts)
    }

    /// A fresh key pair of `bits` (for tests, fixtures and the CLI's helpers).
    public static func generate(bits: Int) throws(CryptoError) -> RSAKey {
        RSAKey(evp: try EVPKey.generate(.rsa(bits: bits)))
    }

    /// The modulus size in bits.
    public var bits: Int { evp.bits }
    /// Whether the private exponent is held.
    public var isPrivate: Bool { evp.hasPrivateKey }
    /// The modulus `n`, minimal big-endian.
    public var modulus: [UInt8] { evp.bigNumberParameter("n") ?? [] }
    /// The public exponent `e`, minimal big-endian.
    public var publicExponent: [UInt8] { evp.bigNumberParameter("e") ?? [] }

    /// RSAES-OAEP encryption of a short secret (MGF1 over `digest`, as is the label hash).
    public func oaepEncrypt(_ plaintext: [UInt8], digest: DigestAlgorithm, label: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try RSAOAEP.encrypt(plaintext, to: evp, digest: digest, label: label)
    }

    /// RSAES-OAEP decryption; every padding or length problem is the same `decryptionFailed`.
    public func oaepDecrypt(_ ciphertext: [UInt8], digest: DigestAlgorithm, label: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try RSAOAEP.decrypt(ciphertext, with: evp, digest: digest, label: label)
    }
}
