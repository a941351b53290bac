package import PolicyRuntime
package import PolicyJOSE
internal import PolicyCrypto

/// Fresh keys of every family the engine verifies or decrypts with, generated once per test
/// run: they stand in for a policy's key sources (`KeyOverride`), so the runner can mint tokens
/// the policy accepts without the issuer's private keys.
///
/// One key per family and curve, each with its own `kid`, so a minted token names the exact key
/// that verifies it and `require_kid` policies are exercised as written.
package struct TestKeyring: Sendable {
    /// Signing keys (private), one per family and curve, and one HMAC secret.
    package let signingKeys: [JWK]
    /// Decryption keys (private or secret), one per key-management family and key size.
    package let decryptionKeys: [JWK]
    /// The sets handed to the compiler.
    package let keyOverride: KeyOverride
    /// A second P-256 client key, for DPoP proofs made with another key than a token is bound to.
    package let otherClientKey: JWK

    /// Generates the keys: two RSA 2048 pairs, the EC, brainpool and Edwards curves (for ECDH-ES
    /// too, and X25519), and the AES and HMAC secrets (about a third of a second, mostly RSA).
    ///
    /// - Throws: `JOSEError` if the crypto library cannot generate a key.
    package init() throws(JOSEError) {
        var signing: [JWK] = [try JWK.generate(for: .rs256, kid: "test-rsa")]
        for algorithm in [JWSAlgorithm.es256, .es384, .es512, .es256k, .bp256r1, .bp384r1, .bp512r1, .ed25519, .ed448] {
            signing.append(try JWK.generate(for: algorithm, kid: "test-\(algorithm.rawValue.lowercased())"))
        }
        signing.append(JWK(secret: SecureRandom.bytes(64), kid: "test-hmac"))
        var decryption = [try JWK.generateForEncryption(.rsaOAEP256, kid: "test-rsa-enc"),
                          try JWK.generateForEncryption(.ecdhES, x25519: true, kid: "test-ecdh-x25519")]
        for curve in EllipticCurve.allCases where curve != .secp256k1 {
            decryption.append(try JWK.generateForEncryption(.ecdhES, curve: curve, kid: "test-ecdh-\(curve.jwkName.lowercased())"))
        }
        for bytes in [16, 24, 32] { decryption.append(JWK(secret: SecureRandom.bytes(bytes), kid: "test-kw-\(bytes * 8)")) }
        for bytes in Set(JWEContentEncryption.allCases.map(\.keyByteCount)).sorted() {
            decryption.append(JWK(secret: SecureRandom.bytes(bytes), kid: "test-dir-\(bytes * 8)"))
        }
        signingKeys = signing
        otherClientKey = try JWK.generate(for: .es256, kid: "test-other-client")
        decryptionKeys = decryption
        let publicKeys = try signing.filter { $0.type != .oct }.map { key throws(JOSEError) in try key.publicKey }
        keyOverride = try KeyOverride(publicKeys: try JWKSet(keys: publicKeys), privateKeys: try JWKSet(keys: signing + decryption))
    }

    /// The key that signs `algorithm`.
    func signingKey(for algorithm: JWSAlgorithm) -> JWK {
        let kid = switch algorithm {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: "test-rsa"
        case .hs256, .hs384, .hs512: "test-hmac"
        case .eddsa: "test-ed25519"
        default: "test-\(algorithm.rawValue.lowercased())"
        }
        return signingKeys.first { $0.kid == kid }!
    }
}
