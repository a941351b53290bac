import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// `format: jwe | nested` with `decryption`: tokens are decrypted before any rule runs, and only
/// with the algorithms and keys the policy names.
@Suite("Encrypted tokens")
struct EncryptedTokenTests {
    static let fixture = TokenFixture.shared
    static let keyDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Keys").path
    static let wrapKey = [UInt8](repeating: 0x2A, count: 32)
    static let environment = ["WRAP_KEY": String(decoding: Base64URL.encodeBytes(wrapKey), as: UTF8.self)]

    static func policy(format: String, decryption: String, signed: Bool = true, body: String = "") throws -> Policy {
        let signature = signed ? "  algorithms: [ES256]\n  keys: {jwks: \(fixture.jwksJSON)}\n" : ""
        let text = "policy: enc\ntoken:\n  format: \(format)\n\(signature)  decryption: \(decryption)\n\(body)"
        return try Policy.load(text: text, file: "enc.yaml", environment: environment)
    }

    static let wrapped = "{algorithms: [A256KW], encryption: [A256GCM], key: {secret: '${env:WRAP_KEY}'}}"

    @Test("nested: decrypt with the policy's key, then verify the inner signature")
    func nested() throws {
        let policy = try Self.policy(format: "nested", decryption: Self.wrapped)
        let jws = try Self.fixture.token()
        let token = try CompactJWE.encrypt(Array(jws.utf8), to: JWK(secret: Self.wrapKey), keyAlgorithm: .a256KW,
                                           contentEncryption: .a256GCM, header: JSONObject(["cty": .string("JWT")]))
        let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.valid && verdict.verified, "\(verdict.findings.map(\.message))")
        #expect(verdict.trace?.entries.first?.rule == "token.decryption")
        #expect(verdict.trace?.entries.first?.at == "enc.yaml:6:15")
        #expect(verdict.trace?.key?.kid == "k1")

        let forged = try CompactJWE.encrypt(Array(Self.fixture.token(signer: Self.fixture.otherKey).utf8), to: JWK(secret: Self.wrapKey),
                                            keyAlgorithm: .a256KW, contentEncryption: .a256GCM)
        let unsigned = try policy.evaluateNow(token: forged, now: UnixTime(seconds: TokenFixture.now))
        #expect(unsigned.codes == [.signatureInvalid])
        #expect(!unsigned.verified)
    }

    @Test("nested with RSA-OAEP-256 and a private key from pem_file")
    func nestedRSA() throws {
        let path = Self.keyDirectory + "/test-rsa-oaep.key.pem"
        let policy = try Self.policy(format: "nested", decryption: "{algorithms: [RSA-OAEP-256], encryption: [A128CBC-HS256], key: {pem_file: \(path)}}")
        let recipient = try JWK(pem: String(contentsOfFile: path, encoding: .utf8))
        let token = try CompactJWE.encrypt(Array(Self.fixture.token().utf8), to: recipient, keyAlgorithm: .rsaOAEP256, contentEncryption: .a128CBCHS256)
        let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.valid, "\(verdict.findings.map(\.message))")
    }

    @Test("jwe: the claims are the plaintext, and authenticated decryption is what verifies")
    func plainJWE() throws {
        let policy = try Self.policy(format: "jwe", decryption: "{algorithms: [dir], encryption: [A256GCM], key: {secret: '${env:WRAP_KEY}'}}",
                                     signed: false, body: "  issuer: https://issuer.example\n  typ: JWT\n")
        var claims = JSONObject()
        for (name, value) in TokenFixture.baseClaims { claims.set(name, value) }
        let token = try CompactJWE.encrypt(JSONValue.object(claims).serializedBytes(), to: JWK(secret: Self.wrapKey), keyAlgorithm: .direct,
                                           contentEncryption: .a256GCM, header: JSONObject(["typ": .string("JWT")]))
        let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.valid && verdict.verified, "\(verdict.findings.map(\.message))")
        #expect(verdict.trace?.key?.source == "secret ${env:WRAP_KEY}")
        let expired = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now + 7200))
        #expect(expired.codes == [.tokenExpired])
    }

    @Test("what the policy does not allow, or cannot decrypt, fails before any rule runs")
    func refusals() throws {
        let policy = try Self.policy(format: "nested", decryption: Self.wrapped)
        let jws = Array(try Self.fixture.token().utf8)
        let otherKey = JWK(secret: [UInt8](repeating: 0x2B, count: 32))
        let cases: [(String, String, FindingCode)] = [
            ("wrong key", try CompactJWE.encrypt(jws, to: otherKey, keyAlgorithm: .a256KW, contentEncryption: .a256GCM), .decryptionFailed),
            ("alg not allowed", try CompactJWE.encrypt(jws, to: JWK(secret: Array(Self.wrapKey.prefix(16))), keyAlgorithm: .a128KW, contentEncryption: .a256GCM), .algNotAllowed),
            ("enc not allowed", try CompactJWE.encrypt(jws, to: JWK(secret: Self.wrapKey), keyAlgorithm: .a256KW, contentEncryption: .a128GCM), .algNotAllowed),
            ("critical outer header", try CompactJWE.encrypt(jws, to: JWK(secret: Self.wrapKey), keyAlgorithm: .a256KW, contentEncryption: .a256GCM,
                                                             header: JSONObject(["crit": .array([.string("x")]), "x": .bool(true)])), .critUnsupported),
            ("a bare JWS", String(decoding: jws, as: UTF8.self), .malformedToken),
            ("a JWE around garbage", try CompactJWE.encrypt(Array("not a jws".utf8), to: JWK(secret: Self.wrapKey), keyAlgorithm: .a256KW, contentEncryption: .a256GCM), .malformedToken),
        ]
        for (name, token, code) in cases {
            let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), trace: true)
            #expect(verdict.codes == [code], "\(name): \(verdict.findings.map(\.message))")
            #expect(!verdict.valid && !verdict.verified, "\(name)")
            #expect(verdict.trace?.entries.contains { $0.status == .notRun && $0.rule == "token.keys" } == true, "\(name)")
        }
        let decryptionFinding = try policy.evaluateNow(token: cases[0].1, now: UnixTime(seconds: TokenFixture.now)).findings.first
        #expect(decryptionFinding?.rule == "token.decryption")
        #expect(decryptionFinding?.at == "enc.yaml:6:15")
    }

    @Test("a kid the decryption keys do not have fails as kid_unknown")
    func unknownKid() throws {
        let k = String(decoding: Base64URL.encodeBytes(Self.wrapKey), as: UTF8.self)
        let policy = try Self.policy(format: "nested", decryption: "{algorithms: [A256KW], encryption: [A256GCM], key: {jwk: {kty: oct, kid: e1, use: enc, k: \(k)}}}")
        let jws = Array(try Self.fixture.token().utf8)
        let named = try CompactJWE.encrypt(jws, to: JWK(secret: Self.wrapKey, kid: "e1"), keyAlgorithm: .a256KW, contentEncryption: .a256GCM)
        #expect(try policy.evaluateNow(token: named, now: UnixTime(seconds: TokenFixture.now)).valid)
        let other = try CompactJWE.encrypt(jws, to: JWK(secret: Self.wrapKey, kid: "e2"), keyAlgorithm: .a256KW, contentEncryption: .a256GCM)
        #expect(try policy.evaluateNow(token: other, now: UnixTime(seconds: TokenFixture.now)).codes == [.kidUnknown])
    }

    @Test("compile errors in format and decryption", arguments: [
        ("format: nestd", DiagnosticCode.invalidValue, 5, "did you mean 'nested'?"),
        ("format: nested", .missingKey, 5, nil),
        ("decryption: \(wrapped)", .conflict, 5, nil),
        ("format: nested\n  decryption: {algorithms: [RSA1_5], encryption: [A256GCM], key: {secret: '${env:WRAP_KEY}'}}", .invalidValue, 6, nil),
        ("format: nested\n  decryption: {algorithms: [A256KW], encryption: [A256GMC], key: {secret: '${env:WRAP_KEY}'}}", .invalidValue, 6, "did you mean 'A256GCM'?"),
        ("format: nested\n  decryption: {algorithms: [A256KW], encryption: [A256GCM]}", .missingKey, 6, nil),
        ("format: nested\n  decryption: {algorithms: [ECDH-ES], encryption: [A256GCM], key: {jwks: \(fixture.jwksJSON)}}", .keySource, 6, nil),
    ] as [(String, DiagnosticCode, Int, String?)])
    func compileErrors(_ row: (String, DiagnosticCode, Int, String?)) {
        let text = "policy: enc\ntoken:\n  algorithms: [ES256]\n  keys: {jwks: \(Self.fixture.jwksJSON)}\n  \(row.0)\n"
        let found = CompileErrorTests.diagnostics(text, environment: Self.environment)
        let match = found.first { $0.code == row.1 }
        #expect(match?.location.line == row.2, "got \(found.map(\.description))")
        if let hint = row.3 { #expect(match?.hint == hint) }
    }

    @Test("format jwe refuses signature settings: nothing is signed")
    func unsignedRefusesSignatureSettings() {
        for setting in ["algorithms: [ES256]", "keys: {jwks: \(Self.fixture.jwksJSON)}", "c_hash: abc"] {
            let text = "policy: enc\ntoken:\n  format: jwe\n  decryption: {algorithms: [dir], encryption: [A256GCM], key: {secret: '${env:WRAP_KEY}'}}\n  \(setting)\n"
            let found = CompileErrorTests.diagnostics(text, environment: Self.environment)
            #expect(found.contains { $0.code == .conflict && $0.location.line == 5 }, "\(setting): \(found.map(\.description))")
        }
    }
}
