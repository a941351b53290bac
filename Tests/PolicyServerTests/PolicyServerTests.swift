import struct FlyingFox.HTTPStatusCode
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KeyServer
import PolicyRuntime
import PolicyJOSE
import PolicyServer
import Testing

/// `policy-run serve` for real: a server on an ephemeral loopback port, called over HTTP.
@Suite("Policy server", .serialized)
struct PolicyServerTests {
    /// A policy directory with a fresh ES256 key, and tokens signed with it.
    final class Fixture: Sendable {
        let directory: String
        let key: JWK

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("policy-server-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            key = try JWK.generate(for: .es256, kid: "k1")
            var exported = try key.publicJSON()
            exported.set("kid", .string("k1"))
            let jwks = JSONValue.object(JSONObject(["keys": .array([.object(exported)])]))
            try String(decoding: jwks.serializedBytes(), as: UTF8.self).write(toFile: directory + "/keys.json", atomically: true, encoding: .utf8)
            try ("policy: api\n" + Self.tokenSection(scope: "read") + "\noutputs:\n  user: claims.sub\n")
                .write(toFile: directory + "/api.yaml", atomically: true, encoding: .utf8)
            try """
            policy: admin-paths
            request:
              method: [GET]
              path: {prefix: /admin/}
            """.write(toFile: directory + "/admin-paths.yaml", atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// A `token` section for the fixture's tokens whose `scope` must contain `scope`.
        static func tokenSection(scope: String) -> String {
            """
            token:
              algorithms: [ES256]
              keys: {jwks_file: keys.json}
              issuer: https://issuer.example
              audience: api
              claims:
                scope: {contains: \(scope)}
            """
        }

        func token(_ changes: [String: JSONValue] = [:]) throws -> String {
            let now = Int64(Date().timeIntervalSince1970)
            var claims = JSONObject(["iss": .string("https://issuer.example"), "aud": .string("api"), "sub": .string("alice"),
                                     "scope": .string("read write"), "iat": .number(.integer(now - 60)), "exp": .number(.integer(now + 600))])
            for (name, value) in changes { claims.set(name, value) }
            return try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), header: JSONObject(["kid": .string("k1")]),
                                       algorithm: .es256, key: key)
        }
    }

    /// Runs `body` against a server of the fixture's policies, then stops the server.
    static func withServer(maxBodyBytes: Int = 1 << 20, decisionLog: DecisionLog = DecisionLog(level: .none),
                           routes: [ServeConfiguration.Route] = [], limits: (inout PolicyServer.Configuration) -> Void = { _ in },
                           prepare: (Fixture) throws -> Void = { _ in }, _ body: (URL, Fixture) async throws -> Void) async throws {
        let fixture = try Fixture()
        try prepare(fixture)
        let cache = JWKSCache()
        var configuration = PolicyServer.Configuration()
        configuration.port = 0
        configuration.maxBodyBytes = maxBodyBytes
        configuration.routes = routes
        limits(&configuration)
        let server = PolicyServer(policies: try ServedPolicies(directory: fixture.directory, keyCache: cache), configuration: configuration,
                                  decisionLog: decisionLog)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        defer { task.cancel() }
        try await body(URL(string: "http://127.0.0.1:\(port)")!, fixture)
        task.cancel()
        _ = await task.result
    }

    static func call(_ url: URL, method: String = "GET", body: String? = nil, headers: [String: String] = [:]) async throws -> (Int, [String: String], String) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        let fields = Dictionary(http.allHeaderFields.map { ("\($0.key)".lowercased(), "\($0.value)") }) { $1 }
        return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
    }

    @Test("check answers the verdict as JSON, 200 whatever it says; a bad call is 400, an unknown policy 404, a large body 413")
    func check() async throws {
        try await Self.withServer(maxBodyBytes: 4096) { base, fixture in
            let check = base.appendingPathComponent("v1/check/api")
            let (status, headers, valid) = try await Self.call(check, method: "POST", body: #"{"token": "\#(try fixture.token())"}"#)
            #expect(status == 200 && headers["content-type"] == "application/json")
            #expect(valid.contains(#""valid":true"#) && valid.contains(#""outputs":{"user":"alice"}"#))
            let (_, _, invalid) = try await Self.call(check, method: "POST", body: #"{"token": "\#(try fixture.token(["aud": .string("other")]))"}"#)
            #expect(invalid.contains(#""valid":false"#) && invalid.contains(#""code":"audience_mismatch""#))
            let (_, _, later) = try await Self.call(check, method: "POST",
                                                    body: #"{"token": "\#(try fixture.token())", "now": "2100-01-01T00:00:00Z"}"#)
            #expect(later.contains(#""code":"token_expired""#) && later.contains(#""source":"the call's now""#) == false)
            let (secondsStatus, _, seconds) = try await Self.call(check, method: "POST", body: #"{"token": "\#(try fixture.token())", "now": "4102444800"}"#)
            #expect(secondsStatus == 200 && seconds.contains(#""code":"token_expired""#))
            for now in [#""4.1e9""#, #""+4102444800""#, "1e300"] {
                let (timeStatus, _, time) = try await Self.call(check, method: "POST", body: #"{"token": "\#(try fixture.token())", "now": \#(now)}"#)
                #expect(timeStatus == 400 && time.contains(#""code":"call_invalid""#), "now: \(now)")
            }

            let (badStatus, _, bad) = try await Self.call(check, method: "POST", body: #"{"token": "a", "token": "b"}"#)
            #expect(badStatus == 400 && bad.contains(#""code":"call_invalid""#) && bad.contains("duplicate"))
            let (unknownStatus, _, unknown) = try await Self.call(check, method: "POST", body: #"{"tokn": "x"}"#)
            #expect(unknownStatus == 400 && unknown.contains("unknown member 'tokn'"))
            let (inputStatus, _, input) = try await Self.call(check, method: "POST", body: #"{"token": "x", "inputs": {"tenant": "acme"}}"#)
            #expect(inputStatus == 400 && input.contains(#""code":"unknown_input""#))
            let (missingStatus, _, _) = try await Self.call(base.appendingPathComponent("v1/check/nowhere"), method: "POST", body: "{}")
            #expect(missingStatus == 404)
            let (largeStatus, _, _) = try await Self.call(check, method: "POST", body: #"{"token": "\#(String(repeating: "a", count: 5000))"}"#)
            #expect(largeStatus == 413)
        }
    }

    @Test("limits: an oversized head is answered 400, a slow head and a slow body are cut off, a connection past the cap gets 503")
    func limits() async throws {
        try await Self.withServer(limits: {
            $0.maxHeaderBytes = 4096
            $0.maxHeaderFields = 20
            $0.idleTimeout = .seconds(1)
            $0.requestTimeout = .seconds(1)
            $0.maxConnections = 3
        }) { base, _ in
            let port = try #require(base.port)
            let (bigAnswer, manyAnswer) = try await RawConnection.offPool {
                let big = try RawConnection(port: port)
                big.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 5000))\r\n\r\n")
                let many = try RawConnection(port: port)
                many.send("GET /healthz HTTP/1.1\r\nHost: x\r\n" + (1...30).map { "X-F\($0): v\r\n" }.joined() + "\r\n")
                return (big.readUntilClosed(), many.readUntilClosed())
            }
            // The server answers 400 and closes with the rest of the head unread, so the client's
            // kernel may take the reset before the answer: refused either way, never served.
            let big = try #require(bigAnswer, "the server neither answered nor closed an oversized head")
            #expect((big.isEmpty || big.hasPrefix("HTTP/1.1 400")) && !big.contains("alive"))
            let many = try #require(manyAnswer)
            #expect((many.isEmpty || many.hasPrefix("HTTP/1.1 400")) && !many.contains("alive"))

            // A head sent a byte at a time is closed an idle timeout after the connection opened;
            // a body sent a byte at a time is answered 408 a request timeout after its head.
            let started = ContinuousClock.now
            let (slowHead, headClosed, slowBody) = try await RawConnection.offPool {
                let slowHead = try RawConnection(port: port)
                slowHead.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
                let slowBody = try RawConnection(port: port)
                slowBody.send("POST /v1/check/api HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"token\":")
                for _ in 0..<8 {
                    Thread.sleep(forTimeInterval: 0.2)
                    slowHead.send("X")
                    slowBody.send(" ")
                }
                let head = slowHead.readUntilClosed()
                return (head, ContinuousClock.now, slowBody.readUntilClosed())
            }
            #expect(slowHead == "")
            #expect(headClosed - started < .seconds(4))
            let slowAnswer = try #require(slowBody)
            #expect(slowAnswer.hasPrefix("HTTP/1.1 408") && slowAnswer.contains(#""code":"request_timeout""#))

            // Three connections held; a fourth is told so, and closed; a place freed is taken again.
            let (heldHeads, refusedAnswer, nextHead) = try await RawConnection.offPool {
                let held = try (0..<3).map { _ in try RawConnection(port: port) }
                for connection in held { connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") }
                let heads = held.map { $0.readHead() }
                let extra = try RawConnection(port: port)
                extra.send("GET /v1/authz/api HTTP/1.1\r\nHost: x\r\n\r\n")
                let refused = extra.readUntilClosed()
                held[0].close()
                Thread.sleep(forTimeInterval: 0.1)
                let next = try RawConnection(port: port)
                next.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return (heads, refused, next.readHead())
            }
            for head in heldHeads { #expect(head?.hasPrefix("HTTP/1.1 200") == true) }
            let refused = try #require(refusedAnswer)
            #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("too_many_connections") && refused.lowercased().contains("connection: close"))
            #expect(nextHead?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    @Test("health, readiness and metrics are answered past the connection cap, each on a connection closed after it; nothing else is")
    func probesPastTheCap() async throws {
        try await Self.withServer(limits: { $0.maxConnections = 16 }) { base, _ in
            let port = try #require(base.port)
            let idle = try (0..<20).map { _ in try RawConnection(port: port) }
            try await Task.sleep(for: .milliseconds(200))
            defer { idle.forEach { $0.close() } }
            for probe in ["healthz", "readyz", "metrics"] {
                let (status, headers, _) = try await Self.call(base.appendingPathComponent(probe))
                #expect(status == 200 && headers["connection"]?.lowercased() == "close", "/\(probe): \(status) \(headers)")
            }
            let (check, _, body) = try await Self.call(base.appendingPathComponent("v1/check/api"), method: "POST", body: "{}")
            #expect(check == 503 && body.contains("too_many_connections"))
            // A request pipelined behind a probe past the cap is not served: the connection closes.
            let answer = try #require(try await RawConnection.offPool {
                let pipelined = try RawConnection(port: port)
                pipelined.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nPOST /v1/check/api HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
                return pipelined.readUntilClosed()
            })
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.components(separatedBy: "HTTP/1.1 ").count == 2, "\(answer)")
        }
    }

    @Test("forward auth: 200 with outputs as headers, 401 invalid_token, 403 insufficient_scope, 401 challenge without a token")
    func forwardAuth() async throws {
        try await Self.withServer { base, fixture in
            let authz = base.appendingPathComponent("v1/authz/api")
            let (ok, okHeaders, _) = try await Self.call(authz, headers: ["Authorization": "Bearer \(try fixture.token())"])
            #expect(ok == 200 && okHeaders["x-auth-user"] == "alice")
            let (expired, expiredHeaders, _) = try await Self.call(authz, headers: ["Authorization": "Bearer \(try fixture.token(["exp": .number(.integer(1))]))"])
            #expect(expired == 401 && expiredHeaders["www-authenticate"] == #"Bearer error="invalid_token", error_description="token_expired""#)
            let (denied, deniedHeaders, _) = try await Self.call(authz, headers: ["Authorization": "Bearer \(try fixture.token(["scope": .string("write")]))"])
            #expect(denied == 403 && deniedHeaders["www-authenticate"] == #"Bearer error="insufficient_scope", error_description="claim_mismatch""#)
            let (none, noneHeaders, _) = try await Self.call(authz)
            #expect(none == 401 && noneHeaders["www-authenticate"] == "Bearer")
            let (forged, _, _) = try await Self.call(authz, headers: ["Authorization": "Bearer \(try fixture.token())x"])
            #expect(forged == 401)
        }
    }

    @Test("forward auth of a request policy reads the original request from X-Forwarded-* headers")
    func forwardedRequest() async throws {
        try await Self.withServer { base, _ in
            let authz = base.appendingPathComponent("v1/authz/admin-paths")
            let forwarded = ["X-Forwarded-Method": "GET", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "app.example", "X-Forwarded-Uri": "/admin/users?page=2"]
            let (allowed, _, _) = try await Self.call(authz, method: "POST", headers: forwarded)
            #expect(allowed == 200)
            var elsewhere = forwarded
            elsewhere["X-Forwarded-Uri"] = "/public/admin/"
            let (denied, _, _) = try await Self.call(authz, method: "POST", headers: elsewhere)
            #expect(denied == 403)
            elsewhere["X-Forwarded-Uri"] = "/admin/%2F..%2Fsecrets"
            let (undecided, _, _) = try await Self.call(authz, method: "POST", headers: elsewhere)
            #expect(undecided == 403)
            // Envoy's ext_authz with path_prefix appends the original path to the endpoint's.
            let (envoyAllowed, _, _) = try await Self.call(base.appendingPathComponent("v1/authz/admin-paths/admin/users"))
            #expect(envoyAllowed == 200)
            let (envoyDenied, _, _) = try await Self.call(base.appendingPathComponent("v1/authz/admin-paths/public/page"))
            #expect(envoyDenied == 403)
        }
    }

    @Test("/metrics counts decisions by policy, endpoint and result, findings by code, and latency")
    func metrics() async throws {
        try await Self.withServer { base, fixture in
            _ = try await Self.call(base.appendingPathComponent("v1/check/api"), method: "POST", body: #"{"token": "\#(try fixture.token())"}"#)
            _ = try await Self.call(base.appendingPathComponent("v1/authz/api"), headers: ["Authorization": "Bearer \(try fixture.token(["aud": .string("x")]))"])
            let (status, headers, text) = try await Self.call(base.appendingPathComponent("metrics"))
            #expect(status == 200 && headers["content-type"]?.hasPrefix("text/plain") == true)
            #expect(text.contains(#"policy_decisions_total{policy="api",endpoint="check",result="valid"} 1"#))
            #expect(text.contains(#"policy_decisions_total{policy="api",endpoint="authz",result="invalid"} 1"#))
            #expect(text.contains(#"policy_findings_total{policy="api",code="audience_mismatch"} 1"#))
            #expect(text.contains(#"policy_evaluation_duration_seconds_count{policy="api"} 2"#))
        }
    }

    @Test("remote keys: /readyz is 503 while the provider is down and turns 200 by itself once it is back, with no call or signal; caches counted in /metrics")
    func remoteKeysReadinessAndMetrics() async throws {
        let keyServer = try await KeyServer()
        let document = await keyServer.document("/jwks", #"{"error": "down"}"#, status: .serviceUnavailable)
        try await Self.withServer(prepare: { fixture in
            // min_refresh_interval at its default (30 s): the background retries are not held to it.
            try """
            policy: remote
            token:
              algorithms: [ES256]
              keys: {jwks_uri: "\(keyServer.url("/jwks").absoluteString)", allow_http: true}
              issuer: https://issuer.example
              audience: api
            """.write(toFile: fixture.directory + "/remote.yaml", atomically: true, encoding: .utf8)
        }) { base, fixture in
            let source = "jwks_uri \(keyServer.url("/jwks").absoluteString)"
            let notFetched = try await Self.call(base.appendingPathComponent("readyz"))
            #expect(notFetched.0 == 503 && notFetched.2.contains(#""status":"waiting_for_keys""#) && notFetched.2.contains(source))
            // The fetch at start fails: the provider answers 503, and /readyz says so.
            let waiting = try await Self.eventually(base.appendingPathComponent("readyz")) { status, text in status == 503 && text.contains("503") }
            #expect(waiting.contains(#""status":"waiting_for_keys""#))

            // The provider comes back 2 s later; only /readyz is asked, and it turns 200 within the
            // retry bound (the backoff is then at most 4 s).
            try await Task.sleep(for: .seconds(2))
            document.set(try String(contentsOfFile: fixture.directory + "/keys.json", encoding: .utf8))
            let ready = try await Self.eventually(base.appendingPathComponent("readyz")) { status, _ in status == 200 }
            #expect(ready.contains(#""status":"ready""#) && !ready.contains("keys_unavailable"))
            let asked = await keyServer.requests("/jwks")
            #expect((3...6).contains(asked), "retried with backoff, not hammered: \(asked) requests in about 3 s")

            let token = try fixture.token()
            let check = base.appendingPathComponent("v1/check/remote")
            for _ in 0..<2 {
                let (_, _, verdict) = try await Self.call(check, method: "POST", body: #"{"token": "\#(token)"}"#)
                #expect(verdict.contains(#""valid":true"#))
            }
            let (_, _, metrics) = try await Self.call(base.appendingPathComponent("metrics"))
            #expect(metrics.contains(#"policy_key_fetches_total{source="\#(source)",result="succeeded"} 1"#))
            #expect(metrics.contains(#"policy_key_fetches_total{source="\#(source)",result="failed"} \#(asked - 1)"#))
            #expect(metrics.contains(#"policy_key_cache_lookups_total{source="\#(source)",result="miss"} 0"#))
            #expect(metrics.contains(#"policy_key_cache_lookups_total{source="\#(source)",result="hit"} 2"#))
            #expect(metrics.contains(#"policy_key_stale_serves_total{source="\#(source)"} 0"#))
            #expect(metrics.contains(#"policy_key_set_age_seconds{source="\#(source)"} "#))
            #expect(metrics.contains(#"policy_signature_cache_lookups_total{result="hit"} 1"#))
            #expect(metrics.contains(#"policy_signature_cache_lookups_total{result="miss"} 1"#))
            #expect(metrics.contains("policy_signature_cache_hit_ratio 0.5\n") && metrics.contains("policy_signature_cache_evictions_total 0\n"))
            #expect(metrics.contains("policy_signature_cache_limit_bytes 67108864.0\n") && metrics.contains("policy_signature_cache_bytes "))
        }
        await keyServer.stop()
    }

    /// Polls `url` until `done` holds for its answer, for at most ten seconds; returns the body.
    static func eventually(_ url: URL, _ done: (Int, String) -> Bool) async throws -> String {
        for _ in 0..<100 {
            let (status, _, text) = try await Self.call(url)
            if done(status, text) { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("\(url) never answered as expected")
        return ""
    }

    @Test("decision logs: a JSON line per decision at timing and data, none at none, never the token")
    func decisionLogs() async throws {
        for level in DecisionLog.Level.allCases {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("decisions-\(UUID().uuidString).jsonl").path
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let handle = try #require(FileHandle(forWritingAtPath: path))
            var tokens: [String] = []
            try await Self.withServer(decisionLog: DecisionLog(level: level, handle: handle)) { base, fixture in
                tokens = [try fixture.token(), try fixture.token(["scope": .string("write")])]
                for token in tokens {
                    _ = try await Self.call(base.appendingPathComponent("v1/check/api"), method: "POST", body: #"{"token": "\#(token)"}"#)
                }
            }
            try handle.close()
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            guard level != .none else {
                #expect(lines.isEmpty)
                continue
            }
            #expect(lines.count == 2, "\(level): \(lines)")
            let entries = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(entries.map { $0["valid"] as? Bool } == [true, false])
            #expect(entries[1]["codes"] as? [String] == ["claim_mismatch"] && entries[0]["kid"] as? String == "k1")
            #expect(entries.allSatisfy { ($0["duration_ms"] as? Double ?? -1) >= 0 && $0["policy"] as? String == "api" })
            #expect((entries[0]["outputs"] as? [String: Any])?["user"] as? String == (level == .data ? "alice" : nil))
            #expect((entries[1]["findings"] as? [[String: Any]])?.first?["rule"] as? String == (level == .data ? "token.claims.scope" : nil))
            for token in tokens { #expect(!lines.contains { $0.contains(token.prefix(40)) }) }
        }
    }

    @Test("every call is a decision: no token, Basic, a malformed bearer, an unreadable request, no route and an unknown policy are counted and logged, never with a header's value")
    func everyCallCounted() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decisions-\(UUID().uuidString).jsonl").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let here = SourceLocation(file: "serve.yaml", line: 3, column: 5)
        let route = ServeConfiguration.Route(pathPrefix: "/orders/", policy: "api", location: here)
        var metrics = ""
        try await Self.withServer(decisionLog: DecisionLog(level: .timing, handle: handle), routes: [route]) { base, _ in
            let named = base.appendingPathComponent("v1/authz/api")
            let calls: [(URL, [String: String], Int)] = [
                (named, [:], 401),
                (named, ["Authorization": "Basic c2VjcmV0LXBhc3N3b3Jk"], 401),
                (named, ["Authorization": "Bearer not a b64token!"], 401),
                (named, ["X-Forwarded-Uri": "/a/%2e%2e/b"], 400),
                (base.appendingPathComponent("v1/authz"), ["X-Forwarded-Uri": "/elsewhere"], 403),
                (base.appendingPathComponent("v1/authz"), ["X-Forwarded-Uri": "/orders/1"], 401),
                (base.appendingPathComponent("v1/authz/nope"), [:], 404),
            ]
            for (url, headers, expected) in calls {
                let (status, _, _) = try await Self.call(url, headers: headers)
                #expect(status == expected, "\(url.path) \(headers)")
            }
            metrics = try await Self.call(base.appendingPathComponent("metrics")).2
        }
        try handle.close()
        for line in [#"policy_decisions_total{policy="api",endpoint="authz",result="no_credential"} 4"#,
                     #"policy_decisions_total{policy="api",endpoint="authz",result="refused"} 1"#,
                     #"policy_refusals_total{endpoint="authz",code="credential_missing"} 2"#,
                     #"policy_refusals_total{endpoint="authz",code="credential_unsupported"} 1"#,
                     #"policy_refusals_total{endpoint="authz",code="bearer_malformed"} 1"#,
                     #"policy_refusals_total{endpoint="authz",code="target_invalid"} 1"#,
                     #"policy_refusals_total{endpoint="authz",code="no_route"} 1"#,
                     #"policy_refusals_total{endpoint="authz",code="unknown_policy"} 1"#] {
            #expect(metrics.contains(line), "\(line)\n\(metrics)")
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let entries = try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(entries.count == 7)
        #expect(entries.map { $0["result"] as? String } == ["no_credential", "no_credential", "no_credential", "refused", "refused", "no_credential", "refused"])
        #expect(entries.map { ($0["codes"] as? [String])?.first } == ["credential_missing", "credential_unsupported", "bearer_malformed", "target_invalid",
                                                                     "no_route", "credential_missing", "unknown_policy"])
        #expect(entries.map { $0["policy"] as? String } == ["api", "api", "api", "api", nil, "api", nil])
        #expect(entries[5]["route"] as? String == "serve.yaml:3" && entries.allSatisfy { $0["valid"] as? Bool == false })
        #expect(!text.contains("c2VjcmV0") && !text.contains("b64token") && !text.lowercased().contains("basic") && !text.contains("nope"))
    }

    @Test("decision logs at data add the claims and request fields named, never credentials or the query; a routed decision names its route")
    func decisionLogFields() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fields-\(UUID().uuidString).jsonl").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let fields = DecisionLog.Fields(claims: ["sub", "scope", "absent"], request: ["method", "path", "headers.x-tenant", "headers.authorization"])
        let route = ServeConfiguration.Route(pathPrefix: "/orders/", policy: "api", location: SourceLocation(file: "serve.yaml", line: 7, column: 5))
        var token = ""
        try await Self.withServer(decisionLog: DecisionLog(level: .data, fields: fields, handle: handle), routes: [route]) { base, fixture in
            token = try fixture.token()
            let (direct, _, _) = try await Self.call(base.appendingPathComponent("v1/authz/api"), headers: [
                "Authorization": "Bearer \(token)", "X-Forwarded-Method": "POST", "X-Forwarded-Uri": "/orders/1?code=secret-code", "X-Tenant": "acme",
            ])
            let (routed, _, _) = try await Self.call(base.appendingPathComponent("v1/authz"), headers: [
                "Authorization": "Bearer \(token)", "X-Forwarded-Uri": "/orders/2", "X-Forwarded-Host": "shop.example",
            ])
            let (checked, _, _) = try await Self.call(base.appendingPathComponent("v1/check/api"), method: "POST", body: #"{"token": "\#(token)"}"#)
            #expect(direct == 200 && routed == 200 && checked == 200)
        }
        try handle.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let entries = try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        try #require(entries.count == 3)
        #expect(entries[0]["claims"] as? [String: String] == ["sub": "alice", "scope": "read write"])
        #expect(entries[0]["request"] as? NSDictionary == ["method": "POST", "path": "/orders/1", "headers": ["x-tenant": "acme"]] as NSDictionary)
        #expect(entries[0]["route"] == nil && entries[1]["route"] as? String == "serve.yaml:7")
        #expect((entries[1]["request"] as? [String: Any])?["path"] as? String == "/orders/2")
        // A check call's token has claims; it gave no request.
        #expect(entries[2]["claims"] as? [String: String] == ["sub": "alice", "scope": "read write"] && entries[2]["request"] == nil)
        #expect(!text.contains("secret-code") && !text.contains(token.prefix(40)) && !text.lowercased().contains("bearer"))
    }

    @Test("routes at /v1/authz choose the policy by the original host and path, take inputs from headers, and name output headers")
    func routes() async throws {
        let here = SourceLocation(file: "serve.yaml", line: 1, column: 1)
        var api = ServeConfiguration.Route(host: "api.example.com", pathPrefix: "/orders/", policy: "api", location: here)
        api.outputHeaders = ["user": "X-User"]
        let admin = ServeConfiguration.Route(pathPrefix: "/admin/", policy: "admin-paths", location: here)
        try await Self.withServer(routes: [api, admin], prepare: { fixture in
            try ("policy: api\n" + Fixture.tokenSection(scope: "read") + "\noutputs:\n  user: claims.sub\n  scope: claims.scope\n")
                .write(toFile: fixture.directory + "/api.yaml", atomically: true, encoding: .utf8)
        }) { base, fixture in
            let authz = base.appendingPathComponent("v1/authz")
            let forwarded = ["X-Forwarded-Method": "GET", "X-Forwarded-Host": "api.example.com", "X-Forwarded-Uri": "/orders/7",
                             "Authorization": "Bearer \(try fixture.token())"]
            let (ok, headers, _) = try await Self.call(authz, headers: forwarded)
            // The route names one output: exactly that one goes out, under its name.
            #expect(ok == 200 && headers["x-user"] == "alice" && headers["x-auth-user"] == nil && headers["x-auth-scope"] == nil, "\(headers)")
            // Without a route, every output goes out as X-Auth-<Name>.
            let (_, all, _) = try await Self.call(base.appendingPathComponent("v1/authz/api"), headers: ["Authorization": forwarded["Authorization"]!])
            #expect(all["x-auth-user"] == "alice" && all["x-auth-scope"] == "read write", "\(all)")
            var otherHost = forwarded
            otherHost["X-Forwarded-Host"] = "evil.example.com"
            let (unrouted, _, body) = try await Self.call(authz, headers: otherHost)
            #expect(unrouted == 403 && body.contains(#""code":"no_route""#))
            let (adminStatus, _, _) = try await Self.call(authz, headers: ["X-Forwarded-Method": "GET", "X-Forwarded-Uri": "/admin/users", "X-Forwarded-Host": "app.example.com"])
            #expect(adminStatus == 200)
        }
    }

    @Test("a serve configuration is read strictly: every problem located, routes checked against the policies")
    func configuration() throws {
        let fixture = try Fixture()
        let file = fixture.directory + "/../serve-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        listen: 127.0.0.1:9000
        policies: \(fixture.directory)
        decision_log: {level: data, sample_valid: 0.5}
        limits: {max_header_bytes: 8192, max_header_fields: 50, max_connections: 16, idle_timeout: 2m, request_timeout: 5s}
        watch: false
        routes:
          - match: {host: api.example.com}
            policy: api
            inputs: {tenant: {header: X-Tenant}}
          - policy: nowhere
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ServeConfiguration(file: file)
        #expect(configuration.server.port == 9000 && configuration.decisionLogLevel == .data && configuration.sampleValid == 0.5 && configuration.watchEvery == nil)
        #expect(configuration.server.routes.map(\.policy) == ["api", "nowhere"])
        #expect(configuration.server.maxHeaderBytes == 8192 && configuration.server.maxHeaderFields == 50 && configuration.server.maxConnections == 16)
        #expect(configuration.server.idleTimeout == .seconds(120) && configuration.server.requestTimeout == .seconds(5)
                && configuration.server.maxBodyBytes == 1 << 20)
        let problems = configuration.problems(with: try PolicySet(directory: fixture.directory, keyCache: JWKSCache()))
        #expect(problems.map(\.message) == ["policy 'api' declares no input 'tenant'", "the route names policy 'nowhere', which \(fixture.directory) does not hold"])

        try "listen: 9000\npolicies: x\nwatch: 0s\nextra: 1\nlimits: {max_connections: 0, idle_timeout: 2h, request_timeout: soon, max_header_bytes: 1.5}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServeConfiguration(file: file)
            Issue.record("a broken configuration was read")
        } catch {
            #expect(error.sorted.map { "\($0.location.line):\($0.location.column) \($0.code.rawValue)" }
                    == ["1:9 wrong_type", "3:8 invalid_value", "4:1 unknown_key", "5:27 invalid_value", "5:44 invalid_value", "5:65 invalid_value", "5:89 invalid_value"])
            #expect(error.sorted.contains { $0.message == "'max_connections' is a number of connections from 1 to 1000000" })
        }

        try "policies: x\ndecision_log: {level: data, claims: sub, request_fields: [method, headers.Cookie, body]}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServeConfiguration(file: file)
            Issue.record("credentials in the decision log were accepted")
        } catch {
            #expect(error.sorted.map { "\($0.location.line):\($0.location.column) \($0.message)" } == [
                "2:37 'claims' is a list of names, found the string \"sub\"",
                "2:67 'headers.Cookie' carries credentials and is never logged",
                "2:83 'body' is not a request field: write method, path, url or headers.NAME",
            ])
        }
    }

    @Test("signature_cache sets the memory of the server's signature cache (64MiB unless given); a size that is not one is located and explained")
    func signatureCacheSize() throws {
        let fixture = try Fixture()
        let file = fixture.directory + "/../serve-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(PolicyServer.Configuration().signatureCacheBytes == 64 << 20)
        try "policies: \(fixture.directory)\nsignature_cache: 16MiB\n".write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ServeConfiguration(file: file)
        #expect(configuration.server.signatureCacheBytes == 16 << 20)
        let server = PolicyServer(policies: try ServedPolicies(directory: fixture.directory, keyCache: JWKSCache()), configuration: configuration.server)
        #expect(server.signatureCache.memoryLimit == 16 << 20)
        for (written, message) in [("64MB", "'signature_cache': '64MB' is not a size: write a whole number of bytes, or of KiB, MiB or GiB (64MiB)"),
                                   ("100KiB", "'signature_cache': '100KiB' is out of range: from 1MiB to 64GiB"),
                                   ("[1]", "'signature_cache' is a whole number of bytes, or of KiB, MiB or GiB (64MiB), found a list")] {
            try "policies: x\nsignature_cache: \(written)\n".write(toFile: file, atomically: true, encoding: .utf8)
            do {
                _ = try ServeConfiguration(file: file)
                Issue.record("signature_cache: \(written) was read")
            } catch {
                #expect(error.sorted.map { "\($0.location.line):\($0.location.column) \($0.message)" } == ["2:18 \(message)"])
            }
        }
    }

    @Test("a decision log file reopens after a rotation renamed it: old lines stay in the old file, new ones go to a new file")
    func logRotation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotation-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/decisions.jsonl"
        let log = try DecisionLog(level: .timing, file: path)
        try await Self.withServer(decisionLog: log) { base, fixture in
            let check = base.appendingPathComponent("v1/check/api")
            _ = try await Self.call(check, method: "POST", body: #"{"token": "\#(try fixture.token())"}"#)
            try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
            try log.reopen()
            _ = try await Self.call(check, method: "POST", body: #"{"token": "\#(try fixture.token(["aud": .string("x")]))"}"#)
        }
        let rotated = try String(contentsOfFile: path + ".1", encoding: .utf8).split(separator: "\n")
        let fresh = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(rotated.count == 1 && rotated[0].contains(#""valid":true"#))
        #expect(fresh.count == 1 && fresh[0].contains(#""valid":false"#))
        #expect(throws: DecisionLogError.self) { try DecisionLog(level: .timing, file: directory + "/missing/dir/log.jsonl") }
    }

    /// Polls `/readyz` until its last reload satisfies `done`, for at most ten seconds.
    static func waitForReload(_ base: URL, _ done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        for _ in 0..<100 {
            let (_, _, text) = try await Self.call(base.appendingPathComponent("readyz"))
            let ready = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            if let reload = ready["last_reload"] as? [String: Any], done(reload) { return reload }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no reload was reported")
        return [:]
    }

    @Test("a changed policy file is reloaded; a broken one leaves the previous policies serving and is reported")
    func hotReload() async throws {
        try await Self.withServer { base, fixture in
            let check = base.appendingPathComponent("v1/check/api")
            let token = try fixture.token()
            let (_, _, before) = try await Self.call(check, method: "POST", body: #"{"token": "\#(token)"}"#)
            #expect(before.contains(#""valid":true"#))

            let policy = fixture.directory + "/api.yaml"
            let changed = try String(contentsOfFile: policy, encoding: .utf8).replacingOccurrences(of: "https://issuer.example", with: "https://other.example")
            try changed.write(toFile: policy, atomically: true, encoding: .utf8)
            _ = try await Self.waitForReload(base) { $0["succeeded"] as? Bool == true }
            let (_, _, after) = try await Self.call(check, method: "POST", body: #"{"token": "\#(token)"}"#)
            #expect(after.contains(#""code":"issuer_mismatch""#))

            try "policy: broken\nmode: strict\n".write(toFile: fixture.directory + "/broken.yaml", atomically: true, encoding: .utf8)
            let failed = try await Self.waitForReload(base) { $0["succeeded"] as? Bool == false }
            #expect((failed["problems"] as? [String])?.contains { $0.contains("broken.yaml:2:7: error[invalid_value]") } == true)
            let (status, _, still) = try await Self.call(check, method: "POST", body: #"{"token": "\#(token)"}"#)
            #expect(status == 200 && still.contains(#""code":"issuer_mismatch""#))
            let (_, _, metrics) = try await Self.call(base.appendingPathComponent("metrics"))
            #expect(metrics.contains(#"policy_reloads_total{result="succeeded"} 1"#) && metrics.contains(#"policy_reloads_total{result="failed"} 1"#))
        }
    }

    @Test("health and readiness probes, and a policy directory that does not compile refuses to start")
    func probes() async throws {
        try await Self.withServer { base, _ in
            let (health, _, alive) = try await Self.call(base.appendingPathComponent("healthz"))
            #expect(health == 200 && alive.contains("alive"))
            let (ready, _, policies) = try await Self.call(base.appendingPathComponent("readyz"))
            #expect(ready == 200 && policies.contains(#""policies":["admin-paths","api"]"#))
        }
        let fixture = try Fixture()
        try "policy: broken\nmode: strict\n".write(toFile: fixture.directory + "/broken.yaml", atomically: true, encoding: .utf8)
        #expect(throws: PolicyDiagnostics.self) { try ServedPolicies(directory: fixture.directory, keyCache: JWKSCache()) }
    }
}
