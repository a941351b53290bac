import PolicyEngine
import Rules
import Testing

/// The signature cache: a repeated token is verified once, and nothing else is remembered.
@Suite("Signature cache")
struct SignatureCacheTests {
    let fixture = TokenFixture.shared

    @Test("a token seen ten times is verified once; its time is still judged per record")
    func repeatedToken() throws {
        let policy = try fixture.policy("")
        let cache = SignatureCache()
        let token = try fixture.token()
        for _ in 0..<10 {
            #expect(try policy.evaluateNow(token: token, now: TokenFixture.now, signatureCache: cache).valid)
        }
        #expect(cache.statistics == .init(hits: 9, misses: 1))
        // Decoded tokens are kept from their second decoding on.
        #expect(cache.decodedTokenStatistics == .init(hits: 8, misses: 2))
        let later = try policy.evaluateNow(token: token, now: TokenFixture.now + 86400, signatureCache: cache)
        #expect(later.codes == [.tokenExpired] && later.verified)
        #expect(cache.statistics.hits == 10 && cache.decodedTokenStatistics.hits == 9)
    }

    @Test("a decoded token answers only for the same limits; verdicts with the cache equal those without")
    func decodedTokensKeepTheirLimits() throws {
        let token = try fixture.token(["note": .string(String(repeating: "x", count: 2000))])
        let roomy = try fixture.policy("")
        let tight = try fixture.policy("limits: {max_token_bytes: 1024}")
        let cache = SignatureCache()
        for _ in 0..<2 { #expect(try roomy.evaluateNow(token: token, now: TokenFixture.now, signatureCache: cache).valid) }
        let refused = try tight.evaluateNow(token: token, now: TokenFixture.now, signatureCache: cache)
        let uncached = try tight.evaluateNow(token: token, now: TokenFixture.now)
        #expect(refused.codes == [.tokenTooLarge] && uncached.codes == [.tokenTooLarge])
        #expect(try roomy.evaluateNow(token: token, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(cache.decodedTokenStatistics == .init(hits: 1, misses: 3))
        // A token that does not decode is not remembered: each presentation is judged again.
        for _ in 0..<3 { #expect(try roomy.evaluateNow(token: "not.a.token", now: TokenFixture.now, signatureCache: cache).codes == [.malformedToken]) }
        #expect(cache.decodedTokenStatistics.misses == 6)
    }

    @Test("a bad signature is remembered as bad; another key set never inherits an answer")
    func keySetsAreSeparate() throws {
        let cache = SignatureCache()
        let forged = try fixture.token(signer: fixture.otherKey)
        let policy = try fixture.policy("")
        for _ in 0..<3 { #expect(try policy.evaluateNow(token: forged, now: TokenFixture.now, signatureCache: cache).codes == [.signatureInvalid]) }
        #expect(cache.statistics == .init(hits: 2, misses: 1))
        let otherKeys = try Policy.load(text: """
        policy: other
        token:
          algorithms: [ES256]
          keys: {jwk: \(String(decoding: JSONValue.object(try fixture.otherKey.publicKey.publicJSON()).serializedBytes(), as: UTF8.self))}
        """, file: "other.yaml", environment: [:])
        #expect(try otherKeys.evaluateNow(token: forged, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(cache.statistics.misses == 2)
    }

    @Test("a full cache starts over instead of growing")
    func bounded() throws {
        let policy = try fixture.policy("")
        let cache = SignatureCache(capacity: 2)
        let tokens = try (0..<3).map { try fixture.token(["jti": .string("t\($0)")]) }
        for token in tokens + tokens { _ = try policy.evaluateNow(token: token, now: TokenFixture.now, signatureCache: cache) }
        #expect(cache.statistics.misses >= 4)
        #expect(cache.statistics.hits + cache.statistics.misses == 6)
    }

    /// The public JWK of `key` as inline policy text.
    func inline(_ key: JWK) throws -> String {
        String(decoding: JSONValue.object(try key.publicKey.publicJSON()).serializedBytes(), as: UTF8.self)
    }

    @Test("two inline key sets written alike never answer for each other: verdicts with the cache equal those without")
    func inlineSetsWrittenAlike() throws {
        // The branches run before the policy's own key check, so a label-keyed cache would let
        // the other key's answer decide it: accept a token signed with other, refuse a genuine one.
        let policy = try Policy.load(text: """
        policy: two-sets
        token:
          algorithms: [ES256]
          keys: {jwk: \(try inline(fixture.key))}
        rules:
          - any_of:
              - token: {algorithms: [ES256], keys: {jwk: \(try inline(fixture.otherKey))}}
              - token: {algorithms: [ES256], keys: {jwk: \(try inline(fixture.key))}}
        """, file: "two-sets.yaml", environment: [:])
        let genuine = try fixture.token()
        let other = try fixture.token(signer: fixture.otherKey)
        let cache = SignatureCache()
        for _ in 0..<2 {
            for token in [other, genuine] {
                let cached = try policy.evaluateNow(token: token, now: TokenFixture.now, signatureCache: cache)
                let uncached = try policy.evaluateNow(token: token, now: TokenFixture.now)
                #expect(cached.json == uncached.json)
            }
        }
        #expect(try policy.evaluateNow(token: genuine, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(try !policy.evaluateNow(token: other, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(cache.statistics.hits > 0)
    }

    @Test("tenant policies sharing one cache: a token one tenant's key verified is not valid for another")
    func tenantsShareACache() throws {
        func tenant(_ key: JWK) throws -> Policy {
            try Policy.load(text: """
            policy: tenant
            token:
              algorithms: [ES256]
              keys: {jwk: \(try inline(key))}
            """, file: "tenant.yaml", environment: [:])
        }
        let (tenantA, tenantB) = (try tenant(fixture.key), try tenant(fixture.otherKey))
        let cache = SignatureCache()
        let signedByB = try fixture.token(signer: fixture.otherKey)
        #expect(try tenantB.evaluateNow(token: signedByB, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(try tenantA.evaluateNow(token: signedByB, now: TokenFixture.now, signatureCache: cache).codes == [.signatureInvalid])
        let signedByA = try fixture.token()
        #expect(try tenantA.evaluateNow(token: signedByA, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(try tenantB.evaluateNow(token: signedByA, now: TokenFixture.now, signatureCache: cache).codes == [.signatureInvalid])
    }

    @Test("a key set's identity follows its material and restrictions, not how the source is written")
    func identityByContent() throws {
        let key = try JWKSet(keys: [fixture.key.publicKey])
        #expect(try JWKSet(keys: [fixture.key.publicKey]).identity == key.identity)
        #expect(try JWKSet(keys: [fixture.otherKey.publicKey]).identity != key.identity)
        var restricted = try fixture.key.publicKey.publicJSON()
        restricted.set("alg", .string("ES256"))
        #expect(try JWKSet(keys: [JWK(object: restricted)]).identity != key.identity)
        restricted.set("kid", .string("k2"))
        #expect(try JWKSet(keys: [JWK(object: restricted)]).identity != key.identity)
        let both = try JWKSet(keys: [fixture.key.publicKey, JWK(object: restricted)])
        let swapped = try JWKSet(keys: [JWK(object: restricted), fixture.key.publicKey])
        #expect(both.identity != swapped.identity)
    }
}
