import FlyingFox
import Foundation
import KeyServer
import Logging
import PolicyRuntime
import PolicyJOSE
import Synchronization
import Testing

/// The remote key cache against a real HTTP server on 127.0.0.1, with the cache's clock moved by
/// the test: fetch counts are the server's own request counts.
@Suite("JWKS cache")
struct JWKSCacheTests {
    let clock = TestClock()
    let log = CapturedLog()

    func cache() -> JWKSCache {
        JWKSCache(logger: log.logger, now: { [clock] in UnixTime(clock.now) })
    }

    /// A source on `url`; a caller that needs a fetch waits for its end (`max_wait` 30 s), since
    /// these tests judge what fetches bring, not how long a caller waits (a test of its own).
    func source(_ url: URL, timeout: Duration = .seconds(5)) -> RemoteKeySource {
        RemoteKeySource(location: .jwksURI(url), timeout: timeout, maxWait: .seconds(30), allowHTTP: true)
    }

    @Test("the first use fetches; later uses within the TTL are served without a request")
    func firstFetchThenHits() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", try TestKeys.jwks(["a", "b"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        let first = await cache.resolve(source, kid: "a")
        #expect(first.kids == ["a", "b"])
        #expect(first.freshness == .fresh)
        #expect(first.keys?.fetchedAt == clock.now)
        clock.advance(300)
        for kid in ["a", "b", nil] {
            #expect(await cache.resolve(source, kid: kid).kids == ["a", "b"])
        }
        #expect(cache.cachedResolution(source, kid: "b")?.kids == ["a", "b"])
        #expect(await server.requests("/jwks") == 1)
        let statistics = cache.statistics(for: source)
        #expect(statistics.fetches == 1 && statistics.misses == 1 && statistics.hits == 4 && statistics.staleServes == 0)
        #expect(cache.statistics() == [source: statistics])
        let fetched = try #require(log.all.first { $0.message == "fetched key set" })
        #expect(fetched.level == .info)
        #expect(fetched.metadata["keys"] == "2" && fetched.metadata["fetches"] == "1")
        await server.stop()
    }

    @Test("rotation: a new kid is fetched once the refetch spacing allows, and the old kid is gone")
    func rotation() async throws {
        let server = try await KeyServer()
        let document = await server.document("/jwks", try TestKeys.jwks(["2026-10"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        #expect(await cache.resolve(source, kid: "2026-10").kids == ["2026-10"])
        document.set(try TestKeys.jwks(["2026-11"]))
        clock.advance(10)
        // Within min_refresh_interval of the last fetch: the new kid is not yet known, and the
        // answer says why no refetch was made.
        let spaced = await cache.resolve(source, kid: "2026-11")
        #expect(spaced.kids == ["2026-10"])
        #expect(spaced.keys?.refetchProblem == "not refetched: min_refresh_interval (30 s) allows the next refetch in 20 s")
        #expect(await server.requests("/jwks") == 1)
        clock.advance(21)
        #expect(await cache.resolve(source, kid: "2026-11").kids == ["2026-11"])
        #expect(await server.requests("/jwks") == 2)
        #expect(await cache.resolve(source, kid: "2026-10").kids == ["2026-11"])
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("a spray of unknown kids refetches at most once per min_refresh_interval")
    func kidSpray() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", try TestKeys.jwks(["real"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        _ = await cache.resolve(source, kid: "real")
        var counts: [Int] = []
        for advance in [31.0, 14, 17] {
            clock.advance(advance)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask { _ = await cache.resolve(source, kid: UUID().uuidString) }
                }
            }
            counts.append(await server.requests("/jwks"))
        }
        print("kid spray: requests after 1 + 3 × 200 random kids at t+31 s, t+45 s, t+62 s: \(counts)")
        #expect(counts == [2, 2, 3])
        await server.stop()
    }

    @Test("a provider that goes down: the last set is served stale, then the source is unavailable")
    func staleThenUnavailable() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", try TestKeys.jwks(["a"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        #expect(await cache.resolve(source, kid: "a").freshness == .fresh)
        await server.stop()
        clock.advance(601)
        // Past its TTL the set is served at once, stale, while the refresh fails in the background.
        let stale = await cache.resolve(source, kid: "a")
        #expect(stale.freshness == .stale)
        #expect(stale.kids == ["a"])
        #expect(await eventually { cache.statistics(for: source).failures == 1 })
        let warning = try #require(log.all.first { $0.message == "key set fetch failed" })
        #expect(warning.level == .warning)
        #expect(warning.metadata["code"] == "transport" && warning.metadata["cache_age_s"] == "601")
        clock.advance(10)
        // Within the refetch spacing the failing provider is not asked again.
        #expect(await cache.resolve(source, kid: "a").freshness == .stale)
        #expect(cache.statistics(for: source).failures == 1)
        clock.advance(3600)
        let gone = await cache.resolve(source, kid: "a")
        #expect(gone.failure?.code == .transport)
        #expect(gone.failure?.message.contains("past stale_if_error") == true)
        let statistics = cache.statistics(for: source)
        #expect(statistics.failures == 2 && statistics.staleServes == 2 && statistics.hits == 2 && statistics.misses == 2, "\(statistics)")
    }

    @Test("a provider that answers after the timeout is a timeout, and nothing is cached")
    func slowServer() async throws {
        let server = try await KeyServer()
        let body = try TestKeys.jwks(["a"])
        await server.route("/jwks") { _ in
            try await Task.sleep(for: .seconds(8))
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8))
        }
        let cache = cache()
        let started = ContinuousClock.now
        let resolution = await cache.resolve(source(server.url("/jwks"), timeout: .seconds(1)), kid: "a")
        #expect(resolution.failure?.code == .timeout)
        // Well before the answer: the timeout cut the wait (with room for a loaded or sanitized run).
        #expect(ContinuousClock.now - started < .seconds(6))
        await server.stop()
    }

    @Test("500s, garbage JSON, private keys and sets without a usable key are failures with their codes")
    func badAnswers() async throws {
        let server = try await KeyServer()
        // RFC 7517 Appendix A.2: a private EC key, as a careless provider might publish it.
        let leaked = #"{"keys": [{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","d":"870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE","kid":"1"}]}"#
        await server.json("/500", #"{"error":"internal"}"#, status: .internalServerError)
        await server.json("/garbage", #"{"keys": [{"kty": "EC",,]}"#)
        await server.json("/duplicate", #"{"keys": [], "keys": []}"#)
        await server.json("/private", leaked)
        await server.json("/unusable", #"{"keys": [{"kty": "XYZ", "kid": "future"}, {"kty": "RSA", "kid": "short", "n": "AQAB", "e": "AQAB"}]}"#)
        let cache = cache()
        let expected: [(String, KeyFetchError.Code)] = [
            ("/500", .httpStatus), ("/garbage", .invalidDocument), ("/duplicate", .invalidDocument),
            ("/private", .invalidDocument), ("/unusable", .noUsableKey),
        ]
        for (path, code) in expected {
            let failure = await cache.resolve(source(server.url(path)), kid: nil).failure
            #expect(failure?.code == code, "\(path): \(String(describing: failure))")
        }
        await server.stop()
    }

    @Test("discovery: the document must name exactly the configured issuer, and its jwks_uri is used")
    func discovery() async throws {
        let server = try await KeyServer()
        let issuer = server.url("").absoluteString
        await server.json("/.well-known/openid-configuration", #"{"issuer": "\#(issuer)", "jwks_uri": "\#(server.url("/keys").absoluteString)"}"#)
        await server.json("/keys", try TestKeys.jwks(["disc"]))
        await server.json("/tenant/.well-known/openid-configuration", #"{"issuer": "\#(issuer)/tenant/", "jwks_uri": "\#(server.url("/keys").absoluteString)"}"#)
        await server.json("/ftp/.well-known/openid-configuration", #"{"issuer": "\#(issuer)/ftp", "jwks_uri": "ftp://127.0.0.1/keys"}"#)
        let cache = cache()
        let found = await cache.resolve(RemoteKeySource(location: .discovery(issuer: issuer), maxWait: .seconds(30), allowHTTP: true), kid: "disc")
        #expect(found.kids == ["disc"])
        let mismatch = await cache.resolve(RemoteKeySource(location: .discovery(issuer: issuer + "/tenant"), maxWait: .seconds(30), allowHTTP: true), kid: "disc")
        #expect(mismatch.failure?.code == .issuerMismatch)
        let insecure = await cache.resolve(RemoteKeySource(location: .discovery(issuer: issuer + "/ftp"), maxWait: .seconds(30), allowHTTP: true), kid: "disc")
        #expect(insecure.failure?.code == .insecureURL)
        #expect(await server.requests("/keys") == 1)
        await server.stop()
    }

    @Test("after 80% of the TTL a use is served at once and refreshes the set in the background")
    func refreshAhead() async throws {
        let server = try await KeyServer()
        let document = await server.document("/jwks", try TestKeys.jwks(["old"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        _ = await cache.resolve(source, kid: "old")
        document.set(try TestKeys.jwks(["new"]))
        clock.advance(470)
        #expect(await cache.resolve(source, kid: "old").kids == ["old"])
        #expect(await server.requests("/jwks") == 1)
        clock.advance(20)
        #expect(await cache.resolve(source, kid: "old").kids == ["old"])
        #expect(await eventually { cache.statistics(for: source).fetches == 2 })
        #expect(cache.cachedResolution(source, kid: nil)?.kids == ["new"])
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("the cached path answers nil on a cold cache and starts the fetch it needed")
    func cachedResolution() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", try TestKeys.jwks(["a"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        #expect(cache.cachedResolution(source, kid: "a") == nil)
        #expect(await eventually { cache.cachedResolution(source, kid: "a") != nil })
        #expect(cache.cachedResolution(source, kid: "a")?.kids == ["a"])
        #expect(await server.requests("/jwks") == 1)
        await server.stop()
    }

    @Test("a kid the cache holds is answered at once while an unknown kid's refetch hangs; the unknown kid waits max_wait and says why")
    func cachedKidNeverWaits() async throws {
        let server = try await KeyServer()
        let delay = Mutex<Duration>(.zero)
        let body = try TestKeys.jwks(["a"])
        await server.route("/jwks") { _ in
            try await Task.sleep(for: delay.withLock { $0 })
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8))
        }
        let cache = cache()
        var source = source(server.url("/jwks"))
        source.maxWait = .milliseconds(300)
        #expect(await cache.resolve(source, kid: "a", untilFetched: true).kids == ["a"])
        delay.withLock { $0 = .seconds(8) }
        clock.advance(31)
        let unknown = Task { () -> (KeyResolution, Duration) in
            let started = ContinuousClock.now
            return (await cache.resolve(source, kid: "invented"), ContinuousClock.now - started)
        }
        try await Task.sleep(for: .milliseconds(50))
        for _ in 0..<5 {
            let started = ContinuousClock.now
            let cached = await cache.resolve(source, kid: "a")
            #expect(cached.kids == ["a"] && cached.freshness == .fresh && ContinuousClock.now - started < .milliseconds(100))
            #expect(cache.cachedResolution(source, kid: "a")?.kids == ["a"])
        }
        let (resolution, took) = await unknown.value
        #expect(took >= .milliseconds(250) && took < .seconds(5), "the unknown kid waited \(took), not max_wait")
        #expect(resolution.keys?.refetchProblem == "the key source is still answering after max_wait (300 ms)")
        // The refetch went on in the background and ended; one request in all since the first.
        #expect(await server.requests("/jwks") == 2)
        await server.stop()
    }

    @Test("an unknown kid while the source fails: the set is served with why nothing newer came, and the verdict's kid_unknown says it")
    func unknownKidWhileFailing() async throws {
        let server = try await KeyServer()
        let document = await server.document("/jwks", try TestKeys.jwks(["a"]))
        let cache = cache()
        let source = source(server.url("/jwks"))
        _ = await cache.resolve(source, kid: "a")
        document.set(#"{"error": "down"}"#, status: .internalServerError)
        clock.advance(31)
        let refused = await cache.resolve(source, kid: "rotated")
        #expect(refused.kids == ["a"] && refused.keys?.refetchProblem == "key source unavailable: http_status")
        await server.stop()
    }
}
