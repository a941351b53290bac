import FlyingFox
import Foundation
import KeyServer
import Logging
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// `JWKSCache.keepFetched`: sources fetched, retried and refreshed without any caller asking,
/// against a real HTTP server on 127.0.0.1 with the cache's clock moved by the test.
@Suite("Key refresh in the background")
struct KeyRefreshTests {
    let clock = TestClock()
    let log = CapturedLog()

    @Test("retry delays: 1 s doubling to 30 s (or min_refresh_interval when shorter), jittered down by at most half")
    func backoff() {
        let source = RemoteKeySource(location: .jwksURI(URL(string: "https://idp.example/jwks")!))
        let full = (1...8).map { KeyRetryBackoff.delay(afterFailures: $0, source: source, jitter: 0) }
        #expect(full == [1, 2, 4, 8, 16, 30, 30, 30])
        #expect(KeyRetryBackoff.delay(afterFailures: 3, source: source, jitter: 1) == 2)
        #expect(KeyRetryBackoff.delay(afterFailures: 1_000, source: source, jitter: 0) == 30)
        let quick = RemoteKeySource(location: .jwksURI(URL(string: "https://idp.example/jwks")!), minRefreshInterval: .seconds(5))
        #expect(KeyRetryBackoff.delay(afterFailures: 6, source: quick, jitter: 0) == 5)
    }

    @Test("a provider down at start is retried with backoff until it answers, logged once per change; a set in hand is refreshed before its TTL ends")
    func retriedThenRefreshed() async throws {
        let server = try await KeyServer()
        let document = await server.document("/jwks", #"{"error": "down"}"#, status: .serviceUnavailable)
        let cache = JWKSCache(logger: log.logger, now: { [clock] in UnixTime(clock.now) })
        let source = RemoteKeySource(location: .jwksURI(server.url("/jwks")), allowHTTP: true)
        let keeping = Task { await cache.keepFetched { [source] } }
        defer { keeping.cancel() }

        #expect(await eventually { cache.statistics(for: source).failures == 1 })
        // Retried once the backoff (at most 1 s after one failure) has passed, though no caller asks.
        clock.advance(1)
        #expect(await eventually { cache.statistics(for: source).failures == 2 })
        clock.advance(2)
        #expect(await eventually { cache.statistics(for: source).failures == 3 })
        // The cache's statistics change before it logs: wait for the third line too.
        _ = await eventually { log.all.filter { $0.message == "key set fetch failed" }.count >= 3 }
        let failures = log.all.filter { $0.message == "key set fetch failed" }
        #expect(failures.map(\.level) == [.warning, .debug, .debug], "the same failure is news once")

        document.set(try TestKeys.jwks(["a"]))
        clock.advance(4)
        #expect(await eventually { cache.statistics(for: source).fetchedAt != nil })
        _ = await eventually { log.all.contains { $0.message == "fetched key set" } }
        let recovered = try #require(log.all.last { $0.message == "fetched key set" })
        #expect(recovered.metadata["after_failures"] == "3")
        #expect(cache.statistics(for: source).hits == 0 && cache.statistics(for: source).misses == 0, "no lookup was made")

        // Nothing is fetched before 80% of cache_ttl (600 s); at 480 s the set is refreshed.
        clock.advance(400)
        try await Task.sleep(for: .milliseconds(1500))
        #expect(await server.requests("/jwks") == 4)
        clock.advance(80)
        #expect(await eventually { cache.statistics(for: source).fetches == 2 })
        #expect(await server.requests("/jwks") == 4 + 1)
        keeping.cancel()
        await server.stop()
    }
}
