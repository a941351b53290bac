import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules
import Testing

/// Messages that say what happened: a payload that is no claims set, a decrypted token whose
/// payload fails, `zip`, JSON serializations, and a decryption key that serves no listed algorithm.
@Suite("Token messages")
struct TokenMessageTests {
    let fixture = TokenFixture.shared

    @Test("issuer and audience messages quote one expected value and bracket several, and quote what the token holds")
    func expectedValues() throws {
        let now = UnixTime(seconds: TokenFixture.now)
        let one = try fixture.policy("issuer: https://issuer.example\naudience: api://one")
        let two = try fixture.policy("issuer: [https://a.example, https://b.example]\naudience: [api://one, api://two]")
        let token = try fixture.token(["iss": .string("https://evil.example"), "aud": .array([.string("api://x"), .string("api://y")])])
        #expect(try one.evaluateNow(token: token, now: now).findings.map(\.message)
                == [#"iss "https://evil.example" is not "https://issuer.example""#, #"aud ["api://x", "api://y"] does not include "api://one""#])
        #expect(try two.evaluateNow(token: token, now: now).findings.map(\.message)
                == [#"iss "https://evil.example" is not ["https://a.example", "https://b.example"]"#,
                    #"aud ["api://x", "api://y"] does not include ["api://one", "api://two"]"#])
        let missing = try fixture.token(remove: ["iss", "aud"])
        #expect(try two.evaluateNow(token: missing, now: now).findings.map(\.message)
                == [#"the token has no iss; expected ["https://a.example", "https://b.example"]"#, #"the token has no aud; expected ["api://one", "api://two"]"#])
    }

    @Test("a JWS whose payload is not a JSON object is 'not a JWT claims set (RFC 7519 §7.2)'")
    func jwsPayload() throws {
        let policy = try fixture.policy("")
        for payload in [#""I am a string""#, "[1,2]", "Ixyz", ""] {
            let token = try CompactJWS.sign(payload: Array(payload.utf8), header: JSONObject(["kid": .string("k1")]), algorithm: .es256, key: fixture.key)
            let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.malformedToken], "\(payload)")
            let message = verdict.findings.first?.message ?? ""
            #expect(message.contains("is not a JWT claims set (RFC 7519 §7.2)") && !message.contains("unexpected character"), "\(payload): \(message)")
        }
    }

    @Test("a plain JWE that decrypts to no claims set is verified by its decryption, and its plaintext is never quoted")
    func decryptedPayload() throws {
        let key = JWK(secret: EncryptedTokenTests.wrapKey)
        let policy = try EncryptedTokenTests.policy(format: "jwe", decryption: "{algorithms: [dir], encryption: [A256GCM], key: {secret: '${env:WRAP_KEY}'}}",
                                                    signed: false)
        for plaintext in ["Isecret-plaintext", #""secret-plaintext""#, #"{"a": 1, "a": 2}"#] {
            let token = try CompactJWE.encrypt(Array(plaintext.utf8), to: key, keyAlgorithm: .direct, contentEncryption: .a256GCM)
            let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), trace: true)
            #expect(!verdict.valid && verdict.verified && verdict.codes == [.malformedToken], "\(plaintext)")
            let message = verdict.findings.first?.message ?? ""
            #expect(message.contains("the decrypted JWE payload is not a JWT claims set"), "\(message)")
            #expect(!message.contains("'I'") && !message.contains("secret") && !message.contains("\"a\""), "\(message)")
            #expect(verdict.trace?.key != nil)
        }
    }

    @Test("zip is header_unsupported, not crit_unsupported; an unknown crit stays crit_unsupported")
    func zipHeader() throws {
        let policy = try EncryptedTokenTests.policy(format: "nested", decryption: EncryptedTokenTests.wrapped)
        let key = JWK(secret: EncryptedTokenTests.wrapKey)
        let token = try CompactJWE.encrypt(Array(fixture.token().utf8), to: key, keyAlgorithm: .a256KW, contentEncryption: .a256GCM)
        let parts = token.split(separator: ".").map(String.init)
        let zipped = String(decoding: Base64URL.encodeBytes(Array(#"{"alg":"A256KW","enc":"A256GCM","zip":"DEF"}"#.utf8)), as: UTF8.self)
        let verdict = try policy.evaluateNow(token: ([zipped] + parts.dropFirst()).joined(separator: "."), now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.codes == [.headerUnsupported], "\(verdict.findings.map(\.message))")
        let critical = try CompactJWE.encrypt(Array(fixture.token().utf8), to: key, keyAlgorithm: .a256KW, contentEncryption: .a256GCM,
                                              header: JSONObject(["crit": .array([.string("ext")]), "ext": .bool(true)]))
        #expect(try policy.evaluateNow(token: critical, now: UnixTime(seconds: TokenFixture.now)).codes == [.critUnsupported])
    }

    @Test("a JSON serialization is named as such, however many dots its values hold, for JWS and JWE policies alike")
    func jsonSerialization() throws {
        let jws = try fixture.policy("")
        let jwe = try EncryptedTokenTests.policy(format: "nested", decryption: EncryptedTokenTests.wrapped)
        for text in [#"{"payload":"eyJ","signatures":[]}"#, #" {"payload":"a.b.c","protected":"x.y"}"#, #"{"protected":"a","ciphertext":"b.c.d.e"}"#] {
            for policy in [jws, jwe] {
                let verdict = try policy.evaluateNow(token: text, now: UnixTime(seconds: TokenFixture.now))
                #expect(verdict.codes == [.malformedToken])
                #expect(verdict.findings.first?.message.contains("JSON serialization") == true, "\(text): \(verdict.findings.map(\.message))")
            }
        }
    }

    @Test("a token.decryption key that serves none of the listed algorithms is a compile error, as under encrypted_fields")
    func decryptionKeyCompile() throws {
        let rsa = EncryptedTokenTests.keyDirectory + "/test-rsa-oaep.key.pem"
        let error = #expect(throws: PolicyDiagnostics.self) {
            try EncryptedTokenTests.policy(format: "nested", decryption: "{algorithms: [A256KW, dir], encryption: [A256GCM], key: {pem_file: \(rsa)}}")
        }
        #expect(error?.errors.contains { $0.code == .keySource && $0.message.contains("cannot decrypt with any of A256KW, dir") } == true,
                "\(error?.items.map(\.description) ?? [])")
        #expect(try EncryptedTokenTests.policy(format: "nested", decryption: "{algorithms: [A256KW, RSA-OAEP-256], encryption: [A256GCM], key: {pem_file: \(rsa)}}")
            .name == "enc")
    }
}
