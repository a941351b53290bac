package import PolicyCrypto

/// Fresh private keys, for tests, fixtures, benchmarks and the CLI's helpers.
extension JWK {
    /// A new private key able to sign `algorithm` (RSA 2048 bits for RS/PS; a 32-byte secret
    /// for HS256, 48 for HS384, 64 for HS512).
    package static func generate(for algorithm: JWSAlgorithm, kid: String? = nil) throws(JOSEError) -> JWK {
        let key: AsymmetricKey
        switch algorithm {
        case .hs256, .hs384, .hs512:
            guard case let .hmac(digest) = algorithm.scheme() else { preconditionFailure("HS algorithms are HMAC") }
            return JWK(secret: SecureRandom.bytes(digest.byteCount), kid: kid, algorithm: algorithm.rawValue)
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: key = .rsa(try JOSEError.mapping { () throws(CryptoError) in try RSAKey.generate(bits: 2048) })
        case .eddsa, .ed25519: key = .okp(try JOSEError.mapping { () throws(CryptoError) in try OKPKey.generate(curve: .ed25519) })
        case .ed448: key = .okp(try JOSEError.mapping { () throws(CryptoError) in try OKPKey.generate(curve: .ed448) })
        default: key = .ec(try JOSEError.mapping { () throws(CryptoError) in try ECKey.generate(curve: algorithm.ecdsaCurve!) })
        }
        return try JWK(key: key, kid: kid)
    }

    /// A new private key for JWE key management with `algorithm` (EC keys on `curve`), named
    /// `kid` when given.
    package static func generateForEncryption(_ algorithm: JWEKeyAlgorithm, curve: EllipticCurve = .p256, x25519: Bool = false,
                                              kid: String? = nil) throws(JOSEError) -> JWK {
        if let length = algorithm.keyWrapByteCount, algorithm.isSymmetric {
            return JWK(secret: SecureRandom.bytes(length), kid: kid)
        }
        let key = try JOSEError.mapping { () throws(CryptoError) -> AsymmetricKey? in
            switch algorithm {
            case .direct: nil
            case .rsaOAEP, .rsaOAEP256: .rsa(try RSAKey.generate(bits: 2048))
            default: x25519 ? .okp(try OKPKey.generate(curve: .x25519)) : .ec(try ECKey.generate(curve: curve))
            }
        }
        guard let key else { return JWK(secret: SecureRandom.bytes(32), kid: kid) }
        return try JWK(key: key, kid: kid, use: kid == nil ? nil : "enc")
    }

    /// The public half of this key (the key itself for `oct`).
    package var publicKey: JWK {
        get throws(JOSEError) {
            guard isPrivate, type != .oct else { return self }
            switch material {
            case let .asymmetric(key):
                return try JWK(key: JOSEError.mapping { () throws(CryptoError) in try key.publicKey() }, kid: kid, use: use, algorithm: algorithm)
            case .secret:
                return self
            }
        }
    }
}
