internal import Crypto
internal import CryptoExtras
internal import Foundation

/// Verifies RSA PKCS#1 v1.5 and PSS signatures through BoringSSL (swift-crypto), which does so
/// about 1.1× as fast as OpenSSL 3 on these machines (Benchmarks `primitives`).
///
/// PSS is RFC 7518's: MGF1 over the message's digest and a salt exactly as long as the digest.
/// A key BoringSSL does not take (under 1,024 bits, or an exponent beyond its 33-bit bound) makes
/// no verifier here, and OpenSSL verifies for it as before.
struct BoringRSAVerifier: SignatureVerifier {
    private let key: _RSA.Signing.PublicKey
    private let padding: _RSA.Signing.Padding
    private let digest: DigestAlgorithm

    /// A verifier for the public key in `publicKeyDER` (SubjectPublicKeyInfo); nil for a key
    /// BoringSSL refuses or a scheme that is not RSA over SHA-2.
    init?(publicKeyDER: [UInt8], scheme: SignatureScheme) {
        switch scheme {
        case let .rsaPKCS1(digest) where digest != .sha1:
            padding = .insecurePKCS1v1_5
            self.digest = digest
        case let .rsaPSS(digest) where digest != .sha1:
            padding = .PSS
            self.digest = digest
        default:
            return nil
        }
        guard let key = try? _RSA.Signing.PublicKey(unsafeDERRepresentation: publicKeyDER) else { return nil }
        self.key = key
    }

    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        let signature = _RSA.Signing.RSASignature(rawRepresentation: signature)
        return switch digest {
        case .sha256: key.isValidSignature(signature, for: SHA256.hash(data: message), padding: padding)
        case .sha384: key.isValidSignature(signature, for: SHA384.hash(data: message), padding: padding)
        case .sha512: key.isValidSignature(signature, for: SHA512.hash(data: message), padding: padding)
        case .sha1: false
        }
    }
}
