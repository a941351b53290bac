import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules
import Testing

/// A key set that names a token's `kid` but whose key for it is malformed: the verdict says why
/// the key was left out, not only that no key has the kid.
@Suite("Dropped key reasons")
struct DroppedKeyReasonTests {
    @Test("a P-521 key whose y is 65 bytes is left out, and the verdict for its kid names the reason")
    func droppedKeyNamed() throws {
        let fixture = TokenFixture.shared
        let key = try JWK.generate(for: .es512, kid: "es512")
        var exported = try key.publicJSON()
        exported.set("kid", .string("es512"))
        let y = try Base64URL.decode(try #require(exported["y"]?.stringValue))
        exported.set("y", .string(Base64URL.encode(Array(y.dropFirst()))))
        var good = try fixture.key.publicJSON()
        good.set("kid", .string("k1"))
        let jwks = String(decoding: JSONValue.object(JSONObject(["keys": .array([.object(good), .object(exported)])])).serializedBytes(), as: UTF8.self)
        let policy = try Policy.load(text: """
        policy: api
        token:
          algorithms: [ES256, ES512]
          keys: {jwks: \(jwks)}
          issuer: https://issuer.example
        """, file: "api.yaml", environment: [:])
        let token = try fixture.token(header: ["kid": .string("es512")], signer: key, algorithm: .es512)
        let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.codes == [.kidUnknown])
        let message = try #require(verdict.findings.first?.message)
        #expect(message.contains("the key with kid 'es512'") && message.contains("unusable"), "\(message)")
        #expect(!message.contains("no key with kid"), "\(message)")
        // A kid the set does not name at all still reads as before.
        let unknown = try policy.evaluateNow(token: fixture.token(header: ["kid": .string("k9")]), now: UnixTime(seconds: TokenFixture.now))
        #expect(unknown.findings.first?.message.contains("no key with kid 'k9'") == true)
    }
}
