@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Testing

/// A verdict names the local key that verified: the description made once per key (a token whose
/// candidates are the whole set) and the one made per token (a kid picks one key) agree.
@Suite("Proofs of local keys")
struct LocalKeyProofTests {
    @Test("the key that verified is named alike whether the token's candidates were the whole set or the key its kid picked")
    func proofNamesTheKey() throws {
        let first = try JWK.generate(for: .es256, kid: "a"), second = try JWK.generate(for: .es256, kid: "b")
        let set = JSONValue.object(JSONObject(["keys": .array([.object(try first.publicKey.publicJSON()), .object(try second.publicKey.publicJSON())])]))
        let policy = try Policy.load(text: """
        policy: two-keys
        token:
          algorithms: [ES256]
          keys: {jwks: \(set.serialized())}
          issuer: https://issuer.example
          audience: client-1
        """, file: "two-keys.yaml", environment: [:])
        let claims = JSONValue.object(JSONObject(["iss": .string("https://issuer.example"), "aud": .string("client-1"),
                                                  "exp": .number(.integer(1_795_255_200))]))
        func proof(signer: JWK, kid: String?) throws -> VerifiedKey? {
            let header = JSONObject(kid.map { ["kid": .string($0)] } ?? [:])
            let token = try CompactJWS.sign(payload: claims.serializedBytes(), header: header, algorithm: .es256, key: signer)
            let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: 1_795_253_400), signatureCache: nil)
            #expect(verdict.valid, "\(verdict.codes)")
            return verdict.proof?.key
        }
        let named = try #require(try proof(signer: second, kid: "b"))
        let unnamed = try #require(try proof(signer: second, kid: nil))
        #expect(named.kid == "b" && unnamed.kid == "b")
        #expect(named == unnamed)
        #expect(try proof(signer: first, kid: nil)?.kid == "a")
        #expect(named.freshness == .fresh && named.snapshot == nil)
    }
}
