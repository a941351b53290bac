internal import COpenSSL

/// Elliptic-curve Diffie-Hellman (on a Weierstrass curve or X25519) and the single-step
/// Concat KDF of NIST SP 800-56A that JWE's ECDH-ES uses (RFC 7518 §4.6.2).
public enum KeyAgreement {
    /// The shared secret Z between a private key and a peer's public key.
    ///
    /// The peer key is validated by OpenSSL (on the curve, in the right subgroup) before any
    /// multiplication, which is what stops invalid-curve attacks.
    static func sharedSecret(privateKey: EVPKey, peer: EVPKey) throws(CryptoError) -> [UInt8] {
        guard privateKey.hasPrivateKey else { throw CryptoError(.keyMismatch, "key agreement needs a private key") }
        guard privateKey.kind == peer.kind else {
            throw CryptoError(.peerKeyInvalid, "the peer key is not on the recipient key's curve")
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey.pointer, nil) else {
            throw openSSLFailure(.cryptoFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw openSSLFailure(.keyMismatch, "the key cannot agree keys") }
        guard EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 1) == 1 else {
            throw openSSLFailure(.peerKeyInvalid, "the peer public key is invalid for this curve")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1 else { throw openSSLFailure(.cryptoFailure, "key agreement failed") }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &output, &length) == 1 else {
            throw openSSLFailure(.peerKeyInvalid, "key agreement failed (the peer key may be of small order)")
        }
        return Array(output.prefix(length))
    }

    private final class FetchedKDF: @unchecked Sendable {
        let pointer: OpaquePointer
        static let singleStep = FetchedKDF()
        private init() {
            guard let kdf = EVP_KDF_fetch(nil, "SSKDF", nil) else {
                preconditionFailure("OpenSSL has no SSKDF: the library is not usable")
            }
            pointer = kdf
        }
    }

    /// Concat KDF with SHA-256: `count` bytes from the shared secret and the encoded OtherInfo.
    public static func concatKDF(sharedSecret: [UInt8], otherInfo: [UInt8], count: Int) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_KDF_CTX_new(FetchedKDF.singleStep.pointer) else {
            throw openSSLFailure(.cryptoFailure, "out of memory")
        }
        defer { EVP_KDF_CTX_free(context) }
        var secret = sharedSecret
        var info = otherInfo
        var output = [UInt8](repeating: 0, count: count)
        let ok = "SHA256".withCString { digestName in
            secret.withUnsafeMutableBytes { secretBuffer in
                info.withUnsafeMutableBytes { infoBuffer in
                    var params = [
                        OpenSSLParameter.utf8String("digest", digestName),
                        OpenSSLParameter.octetString("key", secretBuffer),
                        OpenSSLParameter.octetString("info", infoBuffer),
                        OpenSSLParameter.end,
                    ]
                    return EVP_KDF_derive(context, &output, count, &params) == 1
                }
            }
        }
        guard ok else { throw openSSLFailure(.cryptoFailure, "Concat KDF failed") }
        return output
    }
}
