internal import PolicyCrypto

/// Producing and recovering a JWE's content-encryption key (RFC 7518 §4).
enum JWEKeyManagement {
    /// Recovers the content key of `jwe` with the recipient's `key`.
    static func unwrapContentKey(for jwe: CompactJWE, with key: JWK) throws(JOSEError) -> [UInt8] {
        let encryption = jwe.contentEncryption
        let contentKey: [UInt8]
        switch jwe.keyAlgorithm {
        case .direct:
            try requireEmptyEncryptedKey(jwe)
            contentKey = key.secretBytes ?? []
        case .a128KW, .a192KW, .a256KW:
            contentKey = try JOSEError.mapping { () throws(CryptoError) in try AESCipher.unwrap(key: key.secretBytes ?? [], wrapped: jwe.encryptedKey) }
        case .a128GCMKW, .a192GCMKW, .a256GCMKW:
            let iv = try headerBytes(jwe.header, "iv", count: 12)
            let tag = try headerBytes(jwe.header, "tag", count: 16)
            contentKey = try JOSEError.mapping { () throws(CryptoError) in
                try AESCipher.gcmOpen(key: key.secretBytes ?? [], iv: iv, aad: [], ciphertext: jwe.encryptedKey, tag: tag)
            }
        case .rsaOAEP, .rsaOAEP256:
            contentKey = try unwrapRSA(jwe, key: key)
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW:
            contentKey = try agreeContentKey(jwe, key: key)
        }
        guard contentKey.count == encryption.keyByteCount else {
            throw JOSEError(.decryptionFailed, "the content key is \(contentKey.count) bytes; \(encryption.rawValue) needs \(encryption.keyByteCount)")
        }
        return contentKey
    }

    /// RSA-OAEP unwrapping. A padding failure yields a random key instead of an error, so the
    /// content decryption fails the same way as for any other wrong key (RFC 7516 §11.5).
    private static func unwrapRSA(_ jwe: CompactJWE, key: JWK) throws(JOSEError) -> [UInt8] {
        guard case let .rsa(rsa)? = key.asymmetricKey else { throw JOSEError(.keyMismatch, "RSA-OAEP needs an RSA key") }
        guard jwe.encryptedKey.count == (rsa.bits + 7) / 8 else {
            throw JOSEError(.decryptionFailed, "the encrypted key is \(jwe.encryptedKey.count) bytes; an RSA-\(rsa.bits) key wraps to \((rsa.bits + 7) / 8)")
        }
        let digest: DigestAlgorithm = jwe.keyAlgorithm == .rsaOAEP ? .sha1 : .sha256
        // A key of the wrong length is treated like bad padding: telling the two apart would
        // be an oracle on the private key (Manger's attack on OAEP).
        let random = SecureRandom.bytes(jwe.contentEncryption.keyByteCount)
        guard let unwrapped = try? rsa.oaepDecrypt(jwe.encryptedKey, digest: digest),
              unwrapped.count == jwe.contentEncryption.keyByteCount else { return random }
        return unwrapped
    }

    private static func agreeContentKey(_ jwe: CompactJWE, key: JWK) throws(JOSEError) -> [UInt8] {
        guard let recipient = key.asymmetricKey else { throw JOSEError(.keyMismatch, "ECDH-ES needs an EC or X25519 key") }
        guard case let .object(epkObject)? = jwe.header.object["epk"] else {
            throw JOSEError(.invalidEphemeralKey, "ECDH-ES needs an 'epk' object in the header")
        }
        let ephemeral = try EphemeralKey.parse(epkObject, recipientType: key.type)
        let shared = try EphemeralKey.sharedSecret(recipient, ephemeral)
        let derived = try deriveKey(sharedSecret: shared, algorithm: jwe.keyAlgorithm, encryption: jwe.contentEncryption, header: jwe.header.object)
        if jwe.keyAlgorithm == .ecdhES {
            try requireEmptyEncryptedKey(jwe)
            return derived
        }
        return try JOSEError.mapping { () throws(CryptoError) in try AESCipher.unwrap(key: derived, wrapped: jwe.encryptedKey) }
    }

    /// Concat KDF input per RFC 7518 §4.6.2: AlgorithmID, PartyUInfo, PartyVInfo, SuppPubInfo.
    private static func deriveKey(sharedSecret: [UInt8], algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption, header: JSONObject) throws(JOSEError) -> [UInt8] {
        let direct = algorithm == .ecdhES
        let length = direct ? encryption.keyByteCount : algorithm.keyWrapByteCount!
        let algorithmID = Array((direct ? encryption.rawValue : algorithm.rawValue).utf8)
        let partyU = try optionalHeaderBytes(header, "apu")
        let partyV = try optionalHeaderBytes(header, "apv")
        var otherInfo: [UInt8] = []
        for field in [algorithmID, partyU, partyV] {
            otherInfo += bigEndian32(field.count) + field
        }
        otherInfo += bigEndian32(length * 8)
        return try JOSEError.mapping { () throws(CryptoError) in try KeyAgreement.concatKDF(sharedSecret: sharedSecret, otherInfo: otherInfo, count: length) }
    }

    /// Wraps the content key of `randomness` for `key` (or derives it, for `dir` and ECDH-ES),
    /// adding the algorithm's header parameters.
    static func wrapContentKey(
        for algorithm: JWEKeyAlgorithm, contentEncryption: JWEContentEncryption, to key: JWK, randomness: JWERandomness, header: inout JSONObject
    ) throws(JOSEError) -> (contentKey: [UInt8], encryptedKey: [UInt8]) {
        let fresh = randomness.contentKey
        switch algorithm {
        case .direct:
            let secret = key.secretBytes ?? []
            guard secret.count == contentEncryption.keyByteCount else {
                throw JOSEError(.keyMismatch, "dir with \(contentEncryption.rawValue) needs a \(contentEncryption.keyByteCount)-byte key, found \(secret.count)")
            }
            return (secret, [])
        case .a128KW, .a192KW, .a256KW:
            return (fresh, try JOSEError.mapping { () throws(CryptoError) in try AESCipher.wrap(key: key.secretBytes ?? [], keyToWrap: fresh) })
        case .a128GCMKW, .a192GCMKW, .a256GCMKW:
            let iv = randomness.keyWrapIV
            let sealed = try JOSEError.mapping { () throws(CryptoError) in try AESCipher.gcmSeal(key: key.secretBytes ?? [], iv: iv, aad: [], plaintext: fresh) }
            header.set("iv", .string(Base64URL.encode(iv)))
            header.set("tag", .string(Base64URL.encode(sealed.tag)))
            return (fresh, sealed.ciphertext)
        case .rsaOAEP, .rsaOAEP256:
            guard case let .rsa(rsa)? = key.asymmetricKey else { throw JOSEError(.keyMismatch, "RSA-OAEP needs an RSA key") }
            return (fresh, try JOSEError.mapping { () throws(CryptoError) in try rsa.oaepEncrypt(fresh, digest: algorithm == .rsaOAEP ? .sha1 : .sha256) })
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW:
            guard let recipient = key.asymmetricKey else { throw JOSEError(.keyMismatch, "ECDH-ES needs an EC or X25519 key") }
            guard let ephemeral = randomness.ephemeralKey else { throw JOSEError(.keyMismatch, "ECDH-ES needs an ephemeral key") }
            header.set("epk", .object(try EphemeralKey.publicJWK(ephemeral)))
            let shared = try EphemeralKey.sharedSecret(ephemeral, recipient)
            let derived = try deriveKey(sharedSecret: shared, algorithm: algorithm, encryption: contentEncryption, header: header)
            if algorithm == .ecdhES { return (derived, []) }
            return (fresh, try JOSEError.mapping { () throws(CryptoError) in try AESCipher.wrap(key: derived, keyToWrap: fresh) })
        }
    }

    private static func requireEmptyEncryptedKey(_ jwe: CompactJWE) throws(JOSEError) {
        guard jwe.encryptedKey.isEmpty else {
            throw JOSEError(.decryptionFailed, "\(jwe.keyAlgorithm.rawValue) uses no encrypted key, but the JWE carries one")
        }
    }

    private static func headerBytes(_ header: JOSEHeader, _ name: String, count: Int) throws(JOSEError) -> [UInt8] {
        guard let text = header.string(name) else { throw JOSEError(.invalidHeader, "the header needs a string '\(name)'") }
        let bytes = try Base64URL.decode(text)
        guard bytes.count == count else {
            throw JOSEError(.decryptionFailed, "header '\(name)' must be \(count) bytes, found \(bytes.count)")
        }
        return bytes
    }

    private static func optionalHeaderBytes(_ header: JSONObject, _ name: String) throws(JOSEError) -> [UInt8] {
        guard let value = header[name] else { return [] }
        guard case let .string(text) = value else { throw JOSEError(.invalidHeader, "header '\(name)' must be a base64url string") }
        return try Base64URL.decode(text)
    }

    private static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

/// The sender's ephemeral public key of ECDH-ES (`epk`).
enum EphemeralKey {
    /// Reads `epk`, which must be a public key on the recipient's own curve.
    static func parse(_ object: JSONObject, recipientType: JWK.KeyType) throws(JOSEError) -> AsymmetricKey {
        let reader = JWKMemberReader(object: object)
        guard !reader.has("d") else { throw JOSEError(.invalidEphemeralKey, "'epk' must be a public key, but it carries 'd'") }
        do throws(JOSEError) {
            switch (try reader.requiredString("kty"), recipientType) {
            case let ("EC", .ec(curve)):
                guard EllipticCurve(jwkName: try reader.requiredString("crv")) == curve else {
                    throw JOSEError(.invalidEphemeralKey, "'epk' is not on the recipient's curve \(curve.jwkName)")
                }
                let size = curve.coordinateByteCount
                let x = try reader.fixedLengthBytes("x", count: size, what: "coordinate")
                let y = try reader.fixedLengthBytes("y", count: size, what: "coordinate")
                return .ec(try JOSEError.mapping { () throws(CryptoError) in try ECKey(curve: curve, x: x, y: y) })
            case ("OKP", .okp(.x25519)):
                guard try reader.requiredString("crv") == "X25519" else {
                    throw JOSEError(.invalidEphemeralKey, "'epk' is not an X25519 key")
                }
                let x = try reader.fixedLengthBytes("x", count: 32, what: "X25519 key")
                return .okp(try JOSEError.mapping { () throws(CryptoError) in try OKPKey(curve: .x25519, publicKey: x) })
            default:
                throw JOSEError(.invalidEphemeralKey, "'epk' is not a key of the recipient's type (\(recipientType))")
            }
        } catch {
            throw error.code == .invalidEphemeralKey ? error : JOSEError(.invalidEphemeralKey, "'epk' is invalid: \(error.message)")
        }
    }

    static func generate(like type: JWK.KeyType) throws(JOSEError) -> AsymmetricKey {
        switch type {
        case let .ec(curve): return .ec(try JOSEError.mapping { () throws(CryptoError) in try ECKey.generate(curve: curve) })
        case .okp(.x25519): return .okp(try JOSEError.mapping { () throws(CryptoError) in try OKPKey.generate(curve: .x25519) })
        default: throw JOSEError(.keyMismatch, "ECDH-ES needs an EC or X25519 recipient key")
        }
    }

    /// Z between `privateKey` and `peer`, keys of one family and curve.
    static func sharedSecret(_ privateKey: AsymmetricKey, _ peer: AsymmetricKey) throws(JOSEError) -> [UInt8] {
        try JOSEError.mapping { () throws(CryptoError) in
            switch (privateKey, peer) {
            case let (.ec(mine), .ec(theirs)): try mine.sharedSecret(with: theirs)
            case let (.okp(mine), .okp(theirs)): try mine.sharedSecret(with: theirs)
            default: throw CryptoError(.peerKeyInvalid, "the peer key is not of the recipient key's family")
            }
        }
    }

    static func publicJWK(_ key: AsymmetricKey) throws(JOSEError) -> JSONObject {
        switch key {
        case let .ec(ec):
            let (x, y) = try JOSEError.mapping { () throws(CryptoError) in try ec.publicCoordinates() }
            return JSONObject(["kty": .string("EC"), "crv": .string(ec.curve.jwkName), "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y))])
        case let .okp(okp):
            return JSONObject(["kty": .string("OKP"), "crv": .string(okp.curve.rawValue), "x": .string(Base64URL.encode(okp.publicKey))])
        case .rsa:
            throw JOSEError(.keyMismatch, "ECDH-ES has no RSA ephemeral key")
        }
    }
}
