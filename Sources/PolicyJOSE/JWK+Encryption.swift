package import PolicyCrypto

/// The JWE side of a key: which key-management algorithms it may serve.
extension JWK {
    /// Why this key may not decrypt (or encrypt) with `algorithm`, or nil when it may.
    ///
    /// A key used directly (`dir`) is the content key itself, so its `alg` may name the
    /// content encryption instead (RFC 7520 §5.6 labels its key `A128GCM`).
    package func encryptionRestriction(for algorithm: JWEKeyAlgorithm, contentEncryption: JWEContentEncryption? = nil, decrypting: Bool) -> JOSEError? {
        let name = kid.map { "key '\($0)'" } ?? "the key"
        if let use, use != "enc" {
            return JOSEError(.keyMismatch, "\(name) has use '\(use)', not 'enc'")
        }
        let operations = decrypting ? ["decrypt", "unwrapKey", "deriveKey", "deriveBits"] : ["encrypt", "wrapKey", "deriveKey", "deriveBits"]
        if let keyOperations, !keyOperations.contains(where: operations.contains) {
            return JOSEError(.keyMismatch, "\(name) has key_ops \(keyOperations), none of which allows \(decrypting ? "decryption" : "encryption")")
        }
        if let restricted = self.algorithm, restricted != algorithm.rawValue,
           !(algorithm == .direct && restricted == contentEncryption?.rawValue) {
            return JOSEError(.keyMismatch, "\(name) is restricted to alg '\(restricted)', not \(algorithm.rawValue)")
        }
        let fits: Bool
        switch (algorithm, type) {
        case (.rsaOAEP, .rsa), (.rsaOAEP256, .rsa): fits = true
        case (_, .ec(.secp256k1)): fits = false
        case (_, .ec), (_, .okp(.x25519)): fits = algorithm.isECDH
        case (_, .oct): fits = algorithm.isSymmetric
        default: fits = false
        }
        guard fits else { return JOSEError(.keyMismatch, "\(name) is a \(type) key and cannot serve JWE alg \(algorithm.rawValue)") }
        if decrypting, !isPrivate { return JOSEError(.keyMismatch, "\(name) is a public key; decryption needs the private key") }
        if let wrapLength = algorithm.keyWrapByteCount, algorithm.isSymmetric, let secret = secretBytes, secret.count != wrapLength {
            return JOSEError(.keyMismatch, "\(name) is \(secret.count) bytes; \(algorithm.rawValue) needs a \(wrapLength)-byte key")
        }
        return nil
    }

    /// The crypto layer's key behind an RSA, EC or OKP JWK.
    package var asymmetricKey: AsymmetricKey? {
        if case let .asymmetric(key) = material { return key }
        return nil
    }
}
