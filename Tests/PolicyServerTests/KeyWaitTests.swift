import FlyingFox
import Foundation
import KeyServer
import PolicyRuntime
import PolicyJOSE
import PolicyServer
import Synchronization
import Testing

/// A slow key server never stalls a call whose `kid` the cache holds, through real HTTP: not
/// while an unknown `kid` waits for a refetch, and not while the early refresh runs.
@Suite("Key waits")
struct KeyWaitTests {
    /// Runs `body` against a server whose policy `remote` (key options `options`) takes its keys
    /// from a key server that, once the server is ready, answers only after 8 s.
    static func withSlowKeys(options: String, _ body: (URL, PolicyServerTests.Fixture, KeyServer) async throws -> Void) async throws {
        let keyServer = try await KeyServer()
        let keys = await SlowKeys(keyServer)
        try await PolicyServerTests.withServer(prepare: { fixture in
            keys.serve(try String(contentsOfFile: fixture.directory + "/keys.json", encoding: .utf8))
            try """
            policy: remote
            token:
              algorithms: [ES256]
              keys: {jwks_uri: "\(keyServer.url("/jwks").absoluteString)", allow_http: true, \(options)}
              issuer: https://issuer.example
              audience: api
            """.write(toFile: fixture.directory + "/remote.yaml", atomically: true, encoding: .utf8)
        }) { base, fixture in
            _ = try await PolicyServerTests.eventually(base.appendingPathComponent("readyz")) { status, _ in status == 200 }
            keys.delay(.seconds(8))
            try await body(base, fixture, keyServer)
        }
        await keyServer.stop()
    }

    /// `/jwks` on `keyServer`: the fixture's key set, answered after a delay the test sets.
    final class SlowKeys: Sendable {
        private let state = Mutex<(body: String, delay: Duration)>(("", .zero))

        init(_ keyServer: KeyServer) async {
            await keyServer.route("/jwks") { [self] _ in
                let (body, delay) = state.withLock { $0 }
                try await Task.sleep(for: delay)
                return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8))
            }
        }

        func serve(_ body: String) { state.withLock { $0.body = body } }
        func delay(_ delay: Duration) { state.withLock { $0.delay = delay } }
    }

    /// The status and how long the forward-auth call took.
    static func timed(_ url: URL, token: String) async throws -> (Int, Duration, [String: String]) {
        let started = ContinuousClock.now
        let (status, headers, _) = try await PolicyServerTests.call(url, headers: ["Authorization": "Bearer \(token)"])
        return (status, ContinuousClock.now - started, headers)
    }

    @Test("with an invented kid waiting on a key server that sleeps 8 s, five calls with a cached kid are each answered 200 in < 500 ms")
    func unknownKidDoesNotStallCachedKids() async throws {
        try await Self.withSlowKeys(options: "min_refresh_interval: 1s") { base, fixture, keyServer in
            try await Task.sleep(for: .milliseconds(1100))
            let authz = base.appendingPathComponent("v1/authz/remote")
            let invented = try CompactJWS.sign(payload: Array(#"{"iss":"https://issuer.example","aud":"api","exp":4102444800}"#.utf8),
                                               header: JSONObject(["kid": .string("invented")]), algorithm: .es256, key: fixture.key)
            let unknown = Task { try await Self.timed(authz, token: invented) }
            try await Task.sleep(for: .milliseconds(100))
            let token = try fixture.token()
            for _ in 0..<5 {
                let (status, took, _) = try await Self.timed(authz, token: token)
                #expect(status == 200 && took < .milliseconds(500), "a cached kid took \(took) while a refetch was in flight")
            }
            // The unknown kid waited max_wait (1 s), not the key server's 8 s, and says why.
            let (status, took, headers) = try await unknown.value
            #expect(status == 401 && took < .seconds(3) && headers["www-authenticate"]?.contains("kid_unknown") == true, "\(status) after \(took)")
            let (_, _, verdict) = try await PolicyServerTests.call(base.appendingPathComponent("v1/check/remote"), method: "POST", body: #"{"token": "\#(invented)"}"#)
            #expect(verdict.contains("still answering"), "\(verdict)")
        }
    }

    @Test("the early refresh against a key server that sleeps 8 s delays no call, before and after the TTL")
    func earlyRefreshInTheBackground() async throws {
        try await Self.withSlowKeys(options: "cache_ttl: 2s, min_refresh_interval: 1s") { base, fixture, keyServer in
            try await Task.sleep(for: .milliseconds(1700))
            let authz = base.appendingPathComponent("v1/authz/remote")
            let token = try fixture.token()
            // 80% of the TTL has passed: the first call starts the refresh, none waits for it,
            // past the TTL included (the set is then served stale).
            for _ in 0..<12 {
                let (status, took, _) = try await Self.timed(authz, token: token)
                #expect(status == 200 && took < .milliseconds(500), "a call took \(took) during the refresh")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(await keyServer.requests("/jwks") == 2)
        }
    }
}
