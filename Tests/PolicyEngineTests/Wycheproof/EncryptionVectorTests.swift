import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// The AEAD, key-wrap, RSA-OAEP and ECDH files, through the crypto façade.
@Suite("Wycheproof encryption primitives")
struct EncryptionVectorTests {
    /// OpenSSL 3.0's GCM keeps at most 128 bytes of IV, so the three 257-byte-IV cases (268,
    /// 272, 276) fail with `unsupported_algorithm`; JWE only ever uses 12-byte IVs.
    static let gcmExceptions: [Int: VectorException] = [
        268: .rejected(CryptoError.Code.unsupportedParameter, "IV longer than OpenSSL's 128-byte limit"),
        272: .rejected(CryptoError.Code.unsupportedParameter, "IV longer than OpenSSL's 128-byte limit"),
        276: .rejected(CryptoError.Code.unsupportedParameter, "IV longer than OpenSSL's 128-byte limit"),
    ]

    @Test("AES-GCM: every IV and key size; sealing reproduces each valid ciphertext")
    func aesGCM() throws {
        try Wycheproof.run("aes_gcm_test.json", exceptions: Self.gcmExceptions) { testCase in
            let key = testCase.hex("key"), iv = testCase.hex("iv"), aad = testCase.hex("aad")
            let message = testCase.hex("msg"), ciphertext = testCase.hex("ct"), tag = testCase.hex("tag")
            let opened = try AESCipher.gcmOpen(key: key, iv: iv, aad: aad, ciphertext: ciphertext, tag: tag)
            if testCase.expected == .valid {
                #expect(opened == message, "\(testCase.label): wrong plaintext")
                let sealed = try AESCipher.gcmSeal(key: key, iv: iv, aad: aad, plaintext: message)
                #expect(sealed.ciphertext == ciphertext && sealed.tag == tag, "\(testCase.label): sealing differs")
            }
            return .accepted
        }
    }

    /// ShortKey (an 8-byte key wrapped into 16 bytes) is acceptable in RFC 3394 but not in
    /// SP 800-38F, and no JWE content key is that short: we reject it.
    @Test("AES key wrap: wrap and unwrap agree with every valid case")
    func aesKeyWrap() throws {
        try Wycheproof.run("aes_wrap_test.json", acceptable: { _ in .mustReject }) { testCase in
            let key = testCase.hex("key"), keyToWrap = testCase.hex("msg"), wrapped = testCase.hex("ct")
            let wrapMatches = (try? AESCipher.wrap(key: key, keyToWrap: keyToWrap)) == wrapped
            let unwrapped = Outcome.of { try AESCipher.unwrap(key: key, wrapped: wrapped) == keyToWrap }
            if testCase.expected == .valid { #expect(wrapMatches, "\(testCase.label): wrapping differs") }
            return unwrapped == .accepted || wrapMatches ? .accepted : unwrapped
        }
    }

    static let oaepFiles: [(String, DigestAlgorithm)] = [
        ("rsa_oaep_2048_sha1_mgf1sha1_test.json", .sha1), ("rsa_oaep_2048_sha256_mgf1sha256_test.json", .sha256),
    ]

    @Test("RSA-OAEP decryption, with labels", arguments: oaepFiles)
    func rsaOAEP(file: String, digest: DigestAlgorithm) throws {
        try Wycheproof.run(file) { testCase in
            guard case let .rsa(key) = try AsymmetricKey(privateKeyDER: testCase.groupHex("privateKeyPkcs8")) else {
                throw CryptoError(.keyMismatch, "not an RSA key")
            }
            let plaintext = try key.oaepDecrypt(testCase.hex("ct"), digest: digest, label: testCase.hex("label"))
            if testCase.expected == .valid { #expect(plaintext == testCase.hex("msg"), "\(testCase.label): wrong plaintext") }
            return .accepted
        }
    }

    static let ecdhFiles: [(String, EllipticCurve)] = [
        ("ecdh_secp256r1_test.json", .p256), ("ecdh_brainpoolP256r1_test.json", .brainpoolP256r1),
    ]

    /// The acceptable ECDH cases are public keys in unusual encodings: BER-ish ASN.1 (InvalidAsn)
    /// and compressed points, which OpenSSL's DER reader may take or refuse — either is fine, but
    /// a key we take must give the expected shared secret, which is checked for every accepted
    /// case — and explicit curve parameters (UnnamedCurve), which we always refuse.
    @Test("ECDH with DER public keys: invalid curves and points are refused", arguments: ecdhFiles)
    func ecdh(file: String, curve: EllipticCurve) throws {
        try Wycheproof.run(file, acceptable: { $0.flags.contains("UnnamedCurve") ? .mustReject : .either }) { testCase in
            let privateKey = try ECKey(curve: curve, privateScalar: testCase.hex("private"))
            guard case let .ec(peer) = try AsymmetricKey(publicKeyDER: testCase.hex("public")) else {
                throw CryptoError(.peerKeyInvalid, "not an EC key")
            }
            let shared = try privateKey.sharedSecret(with: peer)
            if testCase.expected != .invalid {
                #expect(shared == testCase.hex("shared"), "\(testCase.label): wrong shared secret")
            }
            return .accepted
        }
    }
}
