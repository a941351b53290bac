/// Fresh private keys, for tests, fixtures, benchmarks and the CLI's helpers.
extension JWK {
    /// A new private key able to sign `algorithm` (RSA 2048 bits for RS/PS; a 32-byte secret
    /// for HS256, 48 for HS384, 64 for HS512).
    package static func generate(for algorithm: JWSAlgorithm, kid: String? = nil) throws(JOSEError) -> JWK {
        let request: KeyGenerationRequest
        switch algorithm {
        case .hs256, .hs384, .hs512:
            guard case let .hmac(digest) = algorithm.scheme() else { preconditionFailure("HS algorithms are HMAC") }
            return JWK(secret: SecureRandom.bytes(digest.byteCount), kid: kid, algorithm: algorithm.rawValue)
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: request = .rsa(bits: 2048)
        case .eddsa, .ed25519: request = .okp(.ed25519)
        case .ed448: request = .okp(.ed448)
        default: request = .ec(algorithm.ecdsaCurve!)
        }
        return try JWK(evpKey: EVPKey.generate(request), kid: kid)
    }

    /// A new private key for JWE key management with `algorithm` (EC keys on `curve`).
    package static func generateForEncryption(_ algorithm: JWEKeyAlgorithm, curve: EllipticCurve = .p256, x25519: Bool = false) throws(JOSEError) -> JWK {
        if let length = algorithm.keyWrapByteCount, algorithm.isSymmetric {
            return JWK(secret: SecureRandom.bytes(length))
        }
        switch algorithm {
        case .direct: return JWK(secret: SecureRandom.bytes(32))
        case .rsaOAEP, .rsaOAEP256: return try JWK(evpKey: EVPKey.generate(.rsa(bits: 2048)))
        default: return try JWK(evpKey: EVPKey.generate(x25519 ? .okp(.x25519) : .ec(curve)))
        }
    }

    /// The public half of this key (the key itself for `oct`).
    package var publicKey: JWK {
        get throws(JOSEError) {
            guard isPrivate, type != .oct else { return self }
            switch material {
            case let .asymmetric(key):
                let der = try key.publicDER()
                return try JWK(evpKey: EVPKey.fromPublicDER(der), kid: kid, use: use, algorithm: algorithm)
            case let .ed25519(publicKey, _):
                return try JWK(evpKey: EVPKey.okp(curve: .ed25519, publicKey: publicKey), kid: kid, use: use, algorithm: algorithm)
            case .secret:
                return self
            }
        }
    }
}
