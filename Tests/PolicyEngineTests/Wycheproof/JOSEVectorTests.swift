@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// The `json_web_*` files, through the public JOSE API: `CompactJWS`, `CompactJWE`, `JWK`, `JWKSet`.
@Suite("Wycheproof JOSE")
struct JOSEVectorTests {
    /// The vectors' keys: a single JWK, or a JWK Set when the group gives `keys`.
    enum VectorKey {
        case single(JWK)
        case set(JWKSet)

        init(_ object: JSONObject) throws {
            self = object["keys"] != nil ? .set(try JWKSet(object: object)) : .single(try JWK(object: object))
        }
    }

    /// A JWS or JWE in JSON serialization arrives as an object; we accept only the compact form.
    static func token(_ testCase: WycheproofCase, _ name: String) -> String {
        guard let value = testCase.test[name] else { return "" }
        return value.stringValue ?? value.serialized()
    }

    static func verifySignature(_ testCase: WycheproofCase) throws -> Outcome {
        let keyObject = try #require(testCase.group["public"]?.objectValue ?? testCase.group["private"]?.objectValue)
        let key = try VectorKey(keyObject)
        let jws = try CompactJWS(token(testCase, "jws"))
        return Outcome.of {
            switch key {
            case let .single(jwk): try jws.verify(with: jwk)
            case let .set(set): try jws.verify(with: set) != nil
            }
        }
    }

    static func decrypt(_ testCase: WycheproofCase) throws -> Outcome {
        let key = try VectorKey(try #require(testCase.group["private"]?.objectValue))
        let jwe = try CompactJWE(token(testCase, "jwe"))
        let plaintext: [UInt8]
        switch key {
        case let .single(jwk): plaintext = try jwe.decrypt(with: jwk)
        case let .set(set): plaintext = try jwe.decrypt(with: set)
        }
        if testCase.expected == .valid, let expected = testCase.test["pt"]?.stringValue {
            #expect(plaintext == Hex.decode(expected), "\(testCase.label): wrong plaintext")
        }
        return .accepted
    }

    /// Cases whose listed result contradicts RFC 7515 or the file itself:
    /// - 346 and 350 (RFC 7520 Figure 20) sign with PS384 under a key whose `alg` Wycheproof set
    ///   to PS256, and 347 and 351 (Figure 27) use a key with `alg: ES521`, which names no
    ///   algorithm. The same file's WrongPrimitive cases (PS512 key, PS256/PS384 token: invalid)
    ///   require a key's `alg` to bind it, so these are refused with `key_mismatch`.
    /// - 367 and 370 are listed as invalid padding, but their text is byte for byte that of the
    ///   valid tcId 357 (the padding was lost from the file); the same input must get the same
    ///   answer, so they are accepted.
    /// - 372 and 373 insert '?' into the header or payload and are listed as valid, but their MAC
    ///   covers the text with the '?' removed, not the bytes that were sent: no verifier that
    ///   MACs the transmitted JWS Signing Input (RFC 7515 §5.2) and decodes strictly can accept
    ///   them. They fail as invalid base64url.
    static let signatureExceptions: [Int: VectorException] = [
        346: .rejected(.keyMismatch, "key alg PS256, token PS384"),
        350: .rejected(.keyMismatch, "key alg PS256, token PS384"),
        347: .rejected(.keyMismatch, "key alg ES521 is not an algorithm"),
        351: .rejected(.keyMismatch, "key alg ES521 is not an algorithm"),
        367: .accepted("identical to the valid tcId 357"),
        370: .accepted("identical to the valid tcId 357"),
        372: .rejected(.invalidBase64URL, "MAC does not cover the transmitted signing input"),
        373: .rejected(.invalidBase64URL, "MAC does not cover the transmitted signing input"),
    ]

    @Test("json_web_signature: alg none, key confusion, embedded jwk, malformed parts, DER padding, PSS")
    func signatures() throws {
        try Wycheproof.run("json_web_signature_test.json", exceptions: Self.signatureExceptions, Self.verifySignature)
    }

    @Test("json_web_key: key sizes, ROCA, exponent 1, short and empty secrets, use, alg, curve, duplicate kid, mixed sets")
    func keys() throws {
        try Wycheproof.run("json_web_key_test.json", Self.verifySignature)
    }

    /// RSA1_5 is not offered (issue: PKCS#1 v1.5 key transport invites padding oracles), so its
    /// valid cases must fail with `unsupported_algorithm`; RFC 7520 Figure 170 is compressed
    /// (`zip: DEF`), which is refused with `unsupported_header` (no decompression bombs).
    static let encryptionExceptions: [Int: VectorException] = {
        var exceptions: [Int: VectorException] = [:]
        for tcId in [100, 101, 102, 103, 104, 105, 112, 128] {
            exceptions[tcId] = .rejected(.unsupportedAlgorithm, "RSA1_5 is not offered")
        }
        exceptions[135] = .rejected(.unsupportedHeader, "zip is refused")
        return exceptions
    }()

    @Test("json_web_encryption: tag, IV, key and header tampering, invalid curve points, wrong ciphers")
    func encryption() throws {
        try Wycheproof.run("json_web_encryption_test.json", exceptions: Self.encryptionExceptions, Self.decrypt)
    }

    @Test("json_web_crypto: JWS and JWE through one API, JSON serialization refused")
    func crypto() throws {
        try Wycheproof.run("json_web_crypto_test.json") { testCase in
            testCase.test["jwe"] != nil ? try Self.decrypt(testCase) : try Self.verifySignature(testCase)
        }
    }
}
