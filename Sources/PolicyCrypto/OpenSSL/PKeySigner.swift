internal import COpenSSL

/// Signs with an RSA, ECDSA or Ed448 private key: for tests, fixtures and `policy-run` helpers,
/// never on the verification path.
struct PKeySigner: SignatureSigner {
    let key: EVPKey
    let scheme: SignatureScheme

    func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.hasPrivateKey else { throw CryptoError(.keyMismatch, "signing needs a private key") }
        switch scheme {
        case .eddsa:
            return try signOneShot(message)
        case let .rsaPKCS1(d), let .rsaPSS(d):
            return try signDigest(d.hash(message), digest: d)
        case let .ecdsa(curve, d):
            let der = try signDigest(d.hash(message), digest: d)
            guard let raw = ECDSASignatureEncoding.raw(fromDER: der, coordinateByteCount: curve.coordinateByteCount) else {
                throw openSSLFailure(.cryptoFailure, "could not convert the ECDSA signature")
            }
            return raw
        case .hmac:
            preconditionFailure("HMAC signing goes through HMACKey")
        }
    }

    private func signDigest(_ hash: [UInt8], digest: DigestAlgorithm) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw openSSLFailure(.cryptoFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let md = OpenSSLDigest.of(digest)
        var ok = EVP_PKEY_sign_init(context) == 1 && EVP_PKEY_CTX_set_signature_md(context, md.pointer) == 1
        if case .rsaPKCS1 = scheme {
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        } else if case .rsaPSS = scheme {
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(context, md.pointer) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(md.byteCount)) == 1
        }
        var length = 0
        ok = ok && EVP_PKEY_sign(context, nil, &length, hash, hash.count) == 1
        guard ok else { throw openSSLFailure(.keyMismatch, "the key cannot sign with \(scheme)") }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &output, &length, hash, hash.count) == 1 else {
            throw openSSLFailure(.cryptoFailure, "signing failed")
        }
        return Array(output.prefix(length))
    }

    private func signOneShot(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw openSSLFailure(.cryptoFailure, "out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit_ex(context, nil, nil, nil, nil, key.pointer, nil) == 1,
              EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else { throw openSSLFailure(.keyMismatch, "the key cannot sign with \(scheme)") }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &output, &length, message, message.count) == 1 else {
            throw openSSLFailure(.cryptoFailure, "signing failed")
        }
        return Array(output.prefix(length))
    }
}

/// Verifies EdDSA signatures through OpenSSL (pure EdDSA; its one-shot interface, as RFC 8032
/// requires): Ed448's verifier, and a second opinion on Ed25519 for the vector tests.
final class EVPEdDSAVerifier: SignatureVerifier, @unchecked Sendable {
    private let key: EVPKey
    private let signatureCount: Int

    init(key: EVPKey, curve: OctetKeyCurve) {
        self.key = key
        signatureCount = 2 * curve.keyByteCount
    }

    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == signatureCount, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok = EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, key.pointer, nil) == 1
            && EVP_DigestVerify(
                context,
                signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count
            ) == 1
        if !ok { drainOpenSSLErrors() }
        return ok
    }
}
