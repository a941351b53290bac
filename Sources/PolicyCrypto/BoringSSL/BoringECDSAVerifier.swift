internal import Crypto
internal import Foundation

/// Verifies ES256 and ES384 signatures (P-256 with SHA-256, P-384 with SHA-384) through BoringSSL
/// (swift-crypto), about 1.25× and 1.3× as fast as OpenSSL 3 on these machines; on P-521 BoringSSL
/// is half as fast, so OpenSSL keeps that curve, and every other pairing (Benchmarks `primitives`).
///
/// The signature is JOSE's raw r‖s, each exactly the curve's length; any other length, and an r
/// or s of zero or not below the group order, is refused.
struct BoringECDSAVerifier: SignatureVerifier {
    private enum Key {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
    }

    private let key: Key

    /// A verifier for the public key in `publicKeyDER` (SubjectPublicKeyInfo); nil for another
    /// curve or digest, or a key BoringSSL refuses.
    init?(publicKeyDER: [UInt8], curve: EllipticCurve, digest: DigestAlgorithm) {
        switch (curve, digest) {
        case (.p256, .sha256):
            guard let key = try? P256.Signing.PublicKey(derRepresentation: publicKeyDER) else { return nil }
            self.key = .p256(key)
        case (.p384, .sha384):
            guard let key = try? P384.Signing.PublicKey(derRepresentation: publicKeyDER) else { return nil }
            self.key = .p384(key)
        default:
            return nil
        }
    }

    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        switch key {
        case let .p256(key):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: message))
        case let .p384(key):
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA384.hash(data: message))
        }
    }
}
