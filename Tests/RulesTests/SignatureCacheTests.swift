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
            #expect(try policy.evaluate(token: token, now: TokenFixture.now, signatureCache: cache).valid)
        }
        #expect(cache.statistics == .init(hits: 9, misses: 1))
        let later = try policy.evaluate(token: token, now: TokenFixture.now + 86400, signatureCache: cache)
        #expect(later.codes == [.tokenExpired] && later.verified)
        #expect(cache.statistics.hits == 10)
    }

    @Test("a bad signature is remembered as bad; another key set never inherits an answer")
    func keySetsAreSeparate() throws {
        let cache = SignatureCache()
        let forged = try fixture.token(signer: fixture.otherKey)
        let policy = try fixture.policy("")
        for _ in 0..<3 { #expect(try policy.evaluate(token: forged, now: TokenFixture.now, signatureCache: cache).codes == [.signatureInvalid]) }
        #expect(cache.statistics == .init(hits: 2, misses: 1))
        let otherKeys = try Policy.load(text: """
        policy: other
        token:
          algorithms: [ES256]
          keys: {jwk: \(String(decoding: JSONValue.object(try fixture.otherKey.publicKey.publicJSON()).serializedBytes(), as: UTF8.self))}
        """, file: "other.yaml", environment: [:])
        #expect(try otherKeys.evaluate(token: forged, now: TokenFixture.now, signatureCache: cache).valid)
        #expect(cache.statistics.misses == 2)
    }

    @Test("a full cache starts over instead of growing")
    func bounded() throws {
        let policy = try fixture.policy("")
        let cache = SignatureCache(capacity: 2)
        let tokens = try (0..<3).map { try fixture.token(["jti": .string("t\($0)")]) }
        for token in tokens + tokens { _ = try policy.evaluate(token: token, now: TokenFixture.now, signatureCache: cache) }
        #expect(cache.statistics.misses >= 4)
        #expect(cache.statistics.hits + cache.statistics.misses == 6)
    }
}
