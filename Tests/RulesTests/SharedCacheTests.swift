import FlyingFox
import Foundation
import KeyServer
import PolicyEngine
import PolicyJOSE
import Testing

/// What a service gets without arranging anything: policies loaded apart share the process's
/// key cache, and evaluations the process's signature cache.
@Suite("Shared caches")
struct SharedCacheTests {
    let fixture = TokenFixture.shared

    func policy(named name: String, _ server: KeyServer) throws -> Policy {
        try Policy.load(text: """
        policy: \(name)
        token:
          algorithms: [ES256]
          keys: {jwks_uri: "\(server.url("/jwks").absoluteString)", allow_http: true}
          issuer: https://issuer.example
          audience: client-1
        """, file: "\(name).yaml", environment: [:])
    }

    @Test("two policies loaded apart, naming one JWKS, make one fetch between them")
    func oneFetch() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let idTokens = try policy(named: "id-tokens", server)
        let accessTokens = try policy(named: "access-tokens", server)
        #expect(try await idTokens.evaluate(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(try await accessTokens.evaluate(token: fixture.token(["jti": .string("other")]), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(await server.requests("/jwks") == 1)
        // A cache of its own, as the README says to opt out, fetches for itself.
        let apart = try Policy.load(text: """
        policy: apart
        token:
          algorithms: [ES256]
          keys: {jwks_uri: "\(server.url("/jwks").absoluteString)", allow_http: true}
          issuer: https://issuer.example
          audience: client-1
        """, file: "apart.yaml", environment: [:], keyCache: JWKSCache())
        #expect(try await apart.evaluate(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("an evaluation remembers its signature check in the shared cache unless told not to")
    func signaturesRemembered() throws {
        let policy = try fixture.policy("")
        let keys = try JWKSet(json: Array(fixture.jwksJSON.utf8)).keys
        // A token no other test mints: only this test can make the shared cache remember it.
        let token = try fixture.token(["jti": .string("shared-cache-\(UUID().uuidString)")])
        #expect(try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: nil).valid)
        let own = SignatureCache()
        #expect(try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: own).valid)
        #expect(try own.remembers(token, keys: keys) && !SignatureCache.shared.remembers(token, keys: keys))
        #expect(try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(try SignatureCache.shared.remembers(token, keys: keys))
        let dated = try fixture.token(["jti": .string("shared-cache-async-\(UUID().uuidString)")])
        #expect(try policy.evaluateNow(token: dated, now: UnixTime(Date(timeIntervalSince1970: TokenFixture.now))).valid)
        #expect(try SignatureCache.shared.remembers(dated, keys: keys))
    }
}
