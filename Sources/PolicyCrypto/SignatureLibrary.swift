/// The libraries PolicyCrypto verifies signatures with, and which it prefers for each scheme.
///
/// The preference is measured, not assumed (Benchmarks `primitives`, Benchmarks/RESULTS.md):
/// BoringSSL (swift-crypto's copy, through `CBoringSSLVerify`) for RSA and for ECDSA on P-256
/// and P-384; libsodium for Ed25519; OpenSSL 3 for P-521, the other curves, Ed448 and every key
/// the others refuse. HMAC is OpenSSL's SHA-2 under pads absorbed once per key (`HMACKey`),
/// which none of the others beat.
/// Every library in use passes the same Wycheproof vectors, and they agree on each.
package enum SignatureLibrary: String, Sendable, CaseIterable {
    case openSSL = "OpenSSL 3"
    case boringSSL = "BoringSSL"
    case sodium = "libsodium"

    /// The libraries to try for `scheme`, fastest first; OpenSSL, which serves every scheme and
    /// key the engine accepts, is last.
    package static func preference(for scheme: SignatureScheme) -> [SignatureLibrary] {
        switch scheme {
        case .rsaPKCS1, .rsaPSS, .ecdsa(.p256, .sha256), .ecdsa(.p384, .sha384): [.boringSSL, .openSSL]
        case .eddsa(.ed25519): [.sodium, .openSSL]
        case .ecdsa, .eddsa, .hmac: [.openSSL]
        }
    }
}
