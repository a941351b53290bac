internal import CBoringSSLVerify

/// Verifies RSA PKCS#1 v1.5 and PSS signatures with BoringSSL, which does so 1.1–1.25× as fast
/// as OpenSSL 3 on these machines (Benchmarks `primitives`).
///
/// BoringSSL is the copy swift-crypto builds, called through `CBoringSSLVerify`'s C interface:
/// swift-crypto's Swift one copies the signature into `Data` and boxes the hash on every call.
/// PSS is RFC 7518's: MGF1 over the message's digest and a salt exactly as long as the digest. A
/// key BoringSSL does not take (a modulus under 512 or over 16,384 bits, or even; an exponent of
/// 1, even, or over 33 bits) makes no verifier here, and OpenSSL verifies for it as before.
final class BoringRSAVerifier: SignatureVerifier, @unchecked Sendable {
    /// BoringSSL's `RSA`, owned; it verifies with one key from several threads at once.
    private let key: UnsafeMutableRawPointer
    private let digest: cboring_digest
    private let pss: Int32

    /// A verifier for the public key in `publicKeyDER` (SubjectPublicKeyInfo); nil for a key
    /// BoringSSL refuses or a scheme that is not RSA over SHA-2.
    init?(publicKeyDER: [UInt8], scheme: SignatureScheme) {
        let digest: DigestAlgorithm
        switch scheme {
        case let .rsaPKCS1(algorithm): (digest, pss) = (algorithm, 0)
        case let .rsaPSS(algorithm): (digest, pss) = (algorithm, 1)
        default: return nil
        }
        guard let digest = cboring_digest(digest), let key = cboring_rsa_key_new(publicKeyDER, publicKeyDER.count) else { return nil }
        self.digest = digest
        self.key = key
    }

    deinit {
        cboring_rsa_key_free(key)
    }

    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        cboring_rsa_verify(key, pss, digest, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                           signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count) == 1
    }
}

extension cboring_digest {
    /// BoringSSL's name for a SHA-2 function; nil for SHA-1, which no signature here uses.
    init?(_ digest: DigestAlgorithm) {
        switch digest {
        case .sha256: self = CBORING_SHA256
        case .sha384: self = CBORING_SHA384
        case .sha512: self = CBORING_SHA512
        case .sha1: return nil
        }
    }
}
