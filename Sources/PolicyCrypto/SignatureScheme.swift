/// A signature or MAC primitive with all its parameters fixed, as a JWS `alg` selects it.
public enum SignatureScheme: Sendable, Hashable {
    /// RSASSA-PKCS1-v1_5.
    case rsaPKCS1(DigestAlgorithm)
    /// RSASSA-PSS with MGF1 over the same digest and a salt as long as the digest (RFC 7518 §3.5).
    case rsaPSS(DigestAlgorithm)
    /// ECDSA with the signature as raw big-endian r‖s, each exactly the curve's length (RFC 7518 §3.4).
    case ecdsa(EllipticCurve, DigestAlgorithm)
    /// Pure EdDSA on the given Edwards curve (RFC 8032).
    case eddsa(OctetKeyCurve)
    /// HMAC with the full-length tag.
    case hmac(DigestAlgorithm)
}

/// Checks signatures (or MAC tags) for one key and one scheme.
///
/// Implementations are prepared once per key and shared across threads. A signature that does
/// not verify, whatever its shape, is `false`; only a broken key or library is an error, and that
/// is found when the verifier is made.
public protocol SignatureVerifier: Sendable {
    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool
}

extension SignatureVerifier {
    /// Verifies byte arrays; a convenience over the buffer form.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { sig in message.withUnsafeBytes { verify(signature: sig, message: $0) } }
    }
}

/// Produces signatures (or MAC tags) for one private key and one scheme.
public protocol SignatureSigner: Sendable {
    func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8]
}
