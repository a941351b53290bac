internal import PolicyCrypto

/// Content encryption of a JWE (RFC 7518 §5): AES-GCM, or AES-CBC with HMAC-SHA-2 where the
/// MAC is checked before any decryption, so padding errors are never observable.
enum JWEContentCipher {
    static func open(_ jwe: CompactJWE, contentKey: [UInt8]) throws(JOSEError) -> [UInt8] {
        let encryption = jwe.contentEncryption
        if encryption.isGCM {
            return try JOSEError.mapping { () throws(CryptoError) in
                try AESCipher.gcmOpen(
                    key: contentKey, iv: jwe.initializationVector, aad: jwe.additionalData,
                    ciphertext: jwe.ciphertext, tag: jwe.authenticationTag
                )
            }
        }
        let half = contentKey.count / 2
        let expected = try macTag(
            macKey: Array(contentKey[..<half]), digest: encryption.macDigest!,
            additionalData: jwe.additionalData, iv: jwe.initializationVector, ciphertext: jwe.ciphertext
        )
        guard ConstantTime.equals(expected, jwe.authenticationTag) else {
            throw JOSEError(.decryptionFailed, "the authentication tag does not match: the JWE was altered, or the key is wrong")
        }
        return try JOSEError.mapping { () throws(CryptoError) in
            try AESCipher.cbcDecrypt(key: Array(contentKey[half...]), iv: jwe.initializationVector, ciphertext: jwe.ciphertext)
        }
    }

    static func seal(
        _ plaintext: [UInt8], contentKey: [UInt8], iv: [UInt8], additionalData: [UInt8], encryption: JWEContentEncryption
    ) throws(JOSEError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        if encryption.isGCM {
            return try JOSEError.mapping { () throws(CryptoError) in try AESCipher.gcmSeal(key: contentKey, iv: iv, aad: additionalData, plaintext: plaintext) }
        }
        let half = contentKey.count / 2
        let ciphertext = try JOSEError.mapping { () throws(CryptoError) in try AESCipher.cbcEncrypt(key: Array(contentKey[half...]), iv: iv, plaintext: plaintext) }
        let tag = try macTag(macKey: Array(contentKey[..<half]), digest: encryption.macDigest!, additionalData: additionalData, iv: iv, ciphertext: ciphertext)
        return (ciphertext, tag)
    }

    /// HMAC(MAC_KEY, A || IV || E || AL) truncated to the MAC key's length (RFC 7518 §5.2.2.1).
    private static func macTag(macKey: [UInt8], digest: DigestAlgorithm, additionalData: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws(JOSEError) -> [UInt8] {
        let bitLength = UInt64(additionalData.count) * 8
        let al = (0..<8).reversed().map { UInt8(truncatingIfNeeded: bitLength >> (UInt64($0) * 8)) }
        let mac = try JOSEError.mapping { () throws(CryptoError) in try HMACKey(secret: macKey, digest: digest) }.authenticationCode(additionalData + iv + ciphertext + al)
        return Array(mac.prefix(macKey.count))
    }
}
