@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
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
            #expect(try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
        }
        #expect(cache.statistics == .init(hits: 9, misses: 1))
        // Decoded tokens are kept from their second decoding on.
        #expect(cache.decodedTokenStatistics == .init(hits: 8, misses: 2))
        let later = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now + 86400), signatureCache: cache)
        #expect(later.codes == [.tokenExpired] && later.verified)
        #expect(cache.statistics.hits == 10 && cache.decodedTokenStatistics.hits == 9)
    }

    @Test("a decoded token answers only for the same limits; verdicts with the cache equal those without")
    func decodedTokensKeepTheirLimits() throws {
        let token = try fixture.token(["note": .string(String(repeating: "x", count: 2000))])
        let roomy = try fixture.policy("")
        let tight = try fixture.policy("limits: {max_token_bytes: 1024}")
        let cache = SignatureCache()
        for _ in 0..<2 { #expect(try roomy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid) }
        let refused = try tight.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache)
        let uncached = try tight.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
        #expect(refused.codes == [.tokenTooLarge] && uncached.codes == [.tokenTooLarge])
        #expect(try roomy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
        #expect(cache.decodedTokenStatistics == .init(hits: 1, misses: 3))
        // A token that does not decode is not remembered: each presentation is judged again.
        for _ in 0..<3 { #expect(try roomy.evaluateNow(token: "not.a.token", now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).codes == [.malformedToken]) }
        #expect(cache.decodedTokenStatistics.misses == 6)
    }

    @Test("a bad signature is remembered as bad; another key set never inherits an answer")
    func keySetsAreSeparate() throws {
        let cache = SignatureCache()
        let forged = try fixture.token(signer: fixture.otherKey)
        let policy = try fixture.policy("")
        for _ in 0..<3 { #expect(try policy.evaluateNow(token: forged, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).codes == [.signatureInvalid]) }
        #expect(cache.statistics == .init(hits: 2, misses: 1))
        let otherKeys = try Policy.load(text: """
        policy: other
        token:
          algorithms: [ES256]
          keys: {jwk: \(String(decoding: JSONValue.object(try fixture.otherKey.publicKey.publicJSON()).serializedBytes(), as: UTF8.self))}
        """, file: "other.yaml", environment: [:])
        #expect(try otherKeys.evaluateNow(token: forged, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
        #expect(cache.statistics.misses == 2)
    }

    /// A thousand distinct tokens, more than the smallest cache holds.
    static let thousand = try! (0..<1_000).map { try TokenFixture.shared.token(["jti": .string("t\($0)")]) }

    @Test("a cache too small for the tokens in turn keeps answering the checks it holds, within its memory (one that starts over when full answers none)")
    func noCliff() throws {
        let policy = try fixture.policy("")
        let cache = SignatureCache(memoryLimit: 64 << 10)
        let tokens = Self.thousand
        var overLimit = 0
        for pass in 0..<4 {
            if pass == 1 { #expect(cache.statistics.hits == 0 && cache.count < tokens.count / 2 && cache.count > tokens.count / 4) }
            for token in tokens {
                #expect(try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
                if cache.memoryUsed > cache.memoryLimit { overLimit += 1 }
            }
        }
        let statistics = cache.statistics
        // At best, every check it holds answers in each later pass.
        #expect(Double(statistics.hits) >= 0.6 * Double(3 * cache.count), "\(statistics) with \(cache.count) held")
        #expect(statistics.hits + statistics.misses == 4 * tokens.count && overLimit == 0)
        #expect(statistics.hitRate == Double(statistics.hits) / Double(4 * tokens.count))
    }

    @Test("a token is kept decoded from its second decoding on, however many others came between")
    func decodedOnSecondSighting() throws {
        let policy = try fixture.policy("")
        let cache = SignatureCache()
        for _ in 0..<3 {
            for token in Self.thousand { #expect(try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid) }
        }
        // The third pass finds every token decoded; the second finds only those the sketch's
        // doorkeeper (a Bloom filter) mistook for known at their first decoding: a few at most.
        let decoded = cache.decodedTokenStatistics
        #expect(decoded.hits + decoded.misses == 3_000 && (1_000...1_030).contains(decoded.hits), "\(decoded)")
        #expect(cache.statistics == .init(hits: 2_000, misses: 1_000))
    }

    @Test("hot tokens keep hitting while a stream of unique tokens, more than the cache holds, passes between their uses")
    func hotTokensThroughAStream() throws {
        let policy = try fixture.policy("")
        let cache = SignatureCache(memoryLimit: 64 << 10)
        let hot = try (0..<20).map { try fixture.token(["jti": .string("hot\($0)")]) }
        var hotHits = 0
        for round in 0..<4 {
            for token in hot {
                let before = cache.statistics.hits
                _ = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache)
                if round > 0, cache.statistics.hits > before { hotHits += 1 }
            }
            for index in 0..<1_200 {
                let unique = try fixture.token(["jti": .string("once-\(round)-\(index)")])
                _ = try policy.evaluateNow(token: unique, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache)
            }
        }
        #expect(hotHits == 3 * hot.count, "\(hotHits) of \(3 * hot.count) hot checks answered: \(cache.statistics)")
        #expect(cache.statistics.declined > 0 && cache.memoryUsed <= cache.memoryLimit)
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
                let cached = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache)
                let uncached = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
                #expect(cached.json == uncached.json)
            }
        }
        #expect(try policy.evaluateNow(token: genuine, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
        #expect(try !policy.evaluateNow(token: other, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
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
        #expect(try tenantB.evaluateNow(token: signedByB, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
        #expect(try tenantA.evaluateNow(token: signedByB, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).codes == [.signatureInvalid])
        let signedByA = try fixture.token()
        #expect(try tenantA.evaluateNow(token: signedByA, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).valid)
        #expect(try tenantB.evaluateNow(token: signedByA, now: UnixTime(seconds: TokenFixture.now), signatureCache: cache).codes == [.signatureInvalid])
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
