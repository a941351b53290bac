internal import CBoringSSLVerify

/// Verifies ES256 and ES384 signatures (P-256 with SHA-256, P-384 with SHA-384) with BoringSSL,
/// 1.25–1.3× and 1.5× as fast as OpenSSL 3 on these machines; on P-521 BoringSSL is half as fast,
/// so OpenSSL keeps that curve, and every other pairing (Benchmarks `primitives`).
///
/// The signature is JOSE's raw r‖s (IEEE P1363), which BoringSSL reads as it is: any other
/// length, and an r or s of zero or not below the group order, is refused.
final class BoringECDSAVerifier: SignatureVerifier, @unchecked Sendable {
    /// BoringSSL's `EC_KEY`, owned; it verifies with one key from several threads at once.
    private let key: UnsafeMutableRawPointer
    private let digest: cboring_digest

    /// A verifier for the public key in `publicKeyDER` (SubjectPublicKeyInfo); nil for another
    /// curve or digest, or a key BoringSSL refuses.
    init?(publicKeyDER: [UInt8], curve: EllipticCurve, digest: DigestAlgorithm) {
        let bits: Int32
        switch (curve, digest) {
        case (.p256, .sha256): bits = 256
        case (.p384, .sha384): bits = 384
        default: return nil
        }
        guard let digest = cboring_digest(digest), let key = cboring_ec_key_new(publicKeyDER, publicKeyDER.count, bits) else { return nil }
        self.digest = digest
        self.key = key
    }

    deinit {
        cboring_ec_key_free(key)
    }

    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        cboring_ecdsa_verify(key, digest, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                             signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count) == 1
    }
}
