import FlyingFox
import Foundation
import KeyServer
import Logging
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// Policies whose keys come from a `jwks_uri` served on 127.0.0.1: what verdicts say about
/// fetches, outages and unknown kids.
@Suite("Remote key sources in policies")
struct RemoteKeyPolicyTests {
    let fixture = TokenFixture.shared
    let clock = TestClock()

    func policy(_ server: KeyServer, path: String = "/jwks", options: String = "", cache: JWKSCache) throws -> Policy {
        try Policy.load(text: """
        policy: remote
        token:
          algorithms: [ES256]
          keys: {jwks_uri: "\(server.url(path).absoluteString)", allow_http: true, max_wait: 30s\(options)}
          issuer: https://issuer.example
          audience: client-1
        """, file: "remote.yaml", environment: [:], keyCache: cache)
    }

    func cache() -> JWKSCache {
        JWKSCache(logger: .init(label: "test") { _ in SwiftLogNoOpLogHandler() }, now: { [clock] in UnixTime(clock.now) })
    }

    @Test("100 concurrent evaluations on a cold cache make exactly one request, and all verify")
    func singleFlight() async throws {
        let server = try await KeyServer()
        await server.route("/jwks") { [jwks = fixture.jwksJSON] _ in
            try await Task.sleep(for: .milliseconds(200))
            return .init(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(jwks.utf8))
        }
        let policy = try policy(server, cache: cache())
        let token = try fixture.token()
        let verdicts = try await withThrowingTaskGroup(of: Verdict.self) { group in
            for _ in 0..<100 {
                group.addTask { try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let requests = await server.requests("/jwks")
        print("single flight: 100 concurrent evaluations on a cold cache made \(requests) request(s)")
        #expect(requests == 1)
        #expect(verdicts.count == 100 && verdicts.allSatisfy { $0.valid && $0.keyFreshness == .fresh })
        #expect(verdicts[0].json.objectValue?["key_freshness"] == .string("fresh"))
        await server.stop()
    }

    @Test("a token log judged with remote keys: lines that wait for the fetch are finished in their places, the lines after them judged at once, in order",
          arguments: [1, 2])
    func logWaitsInPlace(jobs: Int) async throws {
        let server = try await KeyServer()
        await server.route("/jwks") { [jwks = fixture.jwksJSON] _ in
            try await Task.sleep(for: .milliseconds(100))
            return .init(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(jwks.utf8))
        }
        let valid = try fixture.token(), otherAudience = try fixture.token(["aud": .string("someone-else")])
        // Three chunks and more: valid tokens, tokens for another audience and lines that are not JSON.
        var lines = "", expected: [Bool] = []
        for index in 0..<700 {
            switch index % 3 {
            case 0: lines += "{\"token\":\"\(valid)\",\"ts\":\(Int(TokenFixture.now))}\n"
            case 1: lines += "{\"token\":\"\(otherAudience)\",\"ts\":\(Int(TokenFixture.now))}\n"
            default: lines += "not json\n"
            }
            expected.append(index % 3 == 0)
        }
        let folder = try ScratchFolder("remote-log")
        try folder.write(lines, to: "log.jsonl")
        // A cold cache: the first line's keys are fetched while it waits.
        let evaluator = BatchEvaluator(policy: try policy(server, cache: cache()), jobs: jobs)
        let handle = try FileHandle(forReadingFrom: folder.path("log.jsonl"))
        defer { try? handle.close() }
        var verdicts: [BatchVerdict] = []
        let count = try await evaluator.run(BatchRecords(reader: LineReader(handle: handle), format: BatchRecordFormat())) { verdicts.append($0) }
        #expect(await server.requests("/jwks") == 1)
        #expect(count == 700)
        #expect(verdicts.map(\.line) == Array(1...700))
        #expect(verdicts.map(\.verdict.valid) == expected)
        #expect(verdicts.enumerated().allSatisfy { index, verdict in
            switch index % 3 {
            case 0: verdict.verdict.keyFreshness == .fresh
            case 1: verdict.verdict.codes == [.audienceMismatch]
            default: verdict.verdict.codes == [.recordMalformed]
            }
        })
        await server.stop()
    }

    @Test("an unknown kid after the allowed refetch is kid_unknown; a known kid never falls back to other keys")
    func unknownKid() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let policy = try policy(server, cache: cache())
        #expect(try await policy.evaluate(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).valid)
        let rotated = try await policy.evaluate(token: fixture.token(header: ["kid": .string("rotated")], signer: fixture.otherKey), now: UnixTime(seconds: TokenFixture.now))
        #expect(rotated.codes == [.kidUnknown])
        #expect(rotated.findings[0].message.contains("fetched 2026-11-21T09:30:00Z"))
        let forged = try await policy.evaluate(token: fixture.token(signer: fixture.otherKey), now: UnixTime(seconds: TokenFixture.now))
        #expect(forged.codes == [.signatureInvalid])
        #expect(await server.requests("/jwks") == 1)
        clock.advance(31)
        let refetched = try await policy.evaluate(token: fixture.token(header: ["kid": .string("rotated")], signer: fixture.otherKey), now: UnixTime(seconds: TokenFixture.now))
        #expect(refetched.codes == [.kidUnknown])
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("an outage: verdicts say the keys were stale, then fail with key_unavailable")
    func outage() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let policy = try policy(server, options: ", cache_ttl: 5m, stale_if_error: 30m", cache: cache())
        let token = try fixture.token()
        #expect(try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now)).keyFreshness == .fresh)
        await server.stop()
        clock.advance(301)
        let stale = try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(stale.valid)
        #expect(stale.keyFreshness == .stale)
        #expect(stale.trace?.key?.freshness == .stale)
        #expect(stale.trace?.entries.first { $0.rule == "token.keys" }?.detail?.contains("stale key set") == true)
        #expect(stale.json.objectValue?["trace"]?.objectValue?["key"]?.objectValue?["freshness"] == .string("stale"))
        clock.advance(1800)
        let gone = try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now))
        #expect(!gone.valid && gone.codes == [.keyUnavailable])
        #expect(gone.keyFreshness == .unavailable)
        #expect(gone.findings[0].message.contains("stale_if_error"))
    }

    @Test("key_freshness comes from the key set at evaluation time, never from the signature cache")
    func freshnessNotCached() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let policy = try policy(server, options: ", cache_ttl: 5m, stale_if_error: 30m", cache: cache())
        let token = try fixture.token()
        let signatures = SignatureCache()
        #expect(try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: signatures).keyFreshness == .fresh)
        await server.stop()
        clock.advance(301)
        let stale = try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now), trace: true, signatureCache: signatures)
        #expect(signatures.statistics.hits == 1)
        #expect(stale.valid && stale.keyFreshness == .stale && stale.trace?.key?.freshness == .stale)
        clock.advance(1800)
        let gone = try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now), signatureCache: signatures)
        #expect(!gone.valid && gone.codes == [.keyUnavailable] && gone.keyFreshness == .unavailable)
    }

    @Test("the synchronous evaluate answers from the cache only; prefetch fills it")
    func synchronousPath() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        await server.json("/missing", "{}", status: .notFound)
        let cache = cache()
        let policy = try policy(server, cache: cache)
        let token = try fixture.token()
        // A synchronous closure selects the overload that never waits for the network.
        let evaluateCached: () throws -> Verdict = { try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now)) }
        #expect { try evaluateCached() } throws: { error in
            (error as? EvaluationError)?.code == .keysNotCached
        }
        // Every error of the engine reads the same way, whatever its domain.
        do {
            _ = try evaluateCached()
        } catch let error as any EngineError {
            #expect(error.codeName == "keys_not_cached" && error.message.contains("prefetch()"))
            #expect("\(error)" == "keys_not_cached: \(error.message)")
        }
        try await policy.prefetch()
        #expect(try evaluateCached().valid)
        #expect(await server.requests("/jwks") == 1)
        let broken = try self.policy(server, path: "/missing", cache: cache)
        await #expect { try await broken.prefetch() } throws: { error in
            (error as? KeyFetchError)?.code == .httpStatus
        }
        await server.stop()
    }

    @Test("policies naming the same source with one cache share its fetch; other key options get their own")
    func sharedCache() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let cache = cache()
        let first = try policy(server, cache: cache)
        let second = try policy(server, cache: cache)
        let strict = try policy(server, options: ", min_rsa_bits: 3072", cache: cache)
        #expect(first.remoteKeySources == second.remoteKeySources)
        let token = try fixture.token()
        for policy in [first, second] { #expect(try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now)).valid) }
        #expect(await server.requests("/jwks") == 1)
        #expect(try await strict.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("a request's bearer token checked with remote keys: fetched before rules run, kid_unknown nested")
    func bearerWithRemoteKeys() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let policy = try Policy.load(text: """
        policy: api
        request:
          bearer: {token: {algorithms: [ES256], keys: {jwks_uri: "\(server.url("/jwks").absoluteString)", allow_http: true, max_wait: 30s}}}
        """, file: "api.yaml", environment: [:], keyCache: cache())
        #expect(policy.remoteKeySources.count == 1)
        func request(_ token: String) -> RequestSubject {
            RequestSubject(json: Array(#"{"method": "GET", "url": "/", "headers": {"Authorization": "Bearer \#(token)"}}"#.utf8))
        }
        #expect(try await policy.evaluate(subjects: [request(fixture.token())], now: UnixTime(seconds: TokenFixture.now)).valid)
        let unknown = try await policy.evaluate(subjects: [request(fixture.token(header: ["kid": .string("rotated")]))], now: UnixTime(seconds: TokenFixture.now))
        #expect(unknown.codes == [.bearerInvalid] && unknown.findings[0].nested.map(\.code) == [.kidUnknown])
        #expect(await server.requests("/jwks") == 1)
        await server.stop()
    }

    @Test("a token inside a claim checked with remote keys: fetched with the outer token's before rules run")
    func embeddedTokenWithRemoteKeys() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let source = "{jwks_uri: \"\(server.url("/jwks").absoluteString)\", allow_http: true, max_wait: 30s}"
        let policy = try fixture.policy("embedded_tokens:\n  njwt: {token: {algorithms: [ES256], keys: \(source)}}")
        #expect(policy.remoteKeySources.count == 1)
        let token = try fixture.token(["njwt": .string(try fixture.token())])
        #expect(throws: EvaluationError.self) { try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now)) }
        #expect(try await policy.evaluate(token: token, now: UnixTime(seconds: TokenFixture.now)).valid)
        let rotated = try fixture.token(["njwt": .string(try fixture.token(header: ["kid": .string("rotated")]))])
        let unknown = try await policy.evaluate(token: rotated, now: UnixTime(seconds: TokenFixture.now))
        #expect(unknown.codes == [.embeddedTokenInvalid] && unknown.findings[0].nested.map(\.code) == [.kidUnknown])
        await server.stop()
    }
}
