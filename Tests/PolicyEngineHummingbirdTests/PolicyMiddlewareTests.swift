import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import KeyServer
import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import PolicyEngineHummingbird
import Rules
import Testing

/// A Hummingbird application guarded by `PolicyMiddleware`, served on loopback and called over HTTP.
@Suite("Hummingbird middleware")
struct PolicyMiddlewareTests {
    struct Context: PolicyRequestContext {
        var coreContext: CoreRequestContextStorage
        var policyVerdict: Verdict?
        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
        }
    }

    static let key = JWK(secret: Array("a-secret-of-thirty-two-bytes-or-more!".utf8))

    static func token(scope: String, expires: Int64 = 600) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = JSONObject(["iss": .string("https://issuer.example"), "aud": .string("api"), "sub": .string("alice"),
                                 "scope": .string(scope), "exp": .number(.integer(now + expires))])
        return try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), algorithm: .hs256, key: key)
    }

    /// Runs `body` with the port of an application of `router` on 127.0.0.1, then stops it.
    static func serve(_ router: Router<Context>, _ body: (Int) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        let task = Task { try await app.run() }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        try await body(try #require(await iterator.next()))
        task.cancel()
        _ = await task.result
    }

    @Test("a valid token reaches the route with the policy's outputs; others get 401 or 403")
    func guardedRoute() async throws {
        let secret = String(decoding: Base64URL.encodeBytes(Array("a-secret-of-thirty-two-bytes-or-more!".utf8)), as: UTF8.self)
        let policy = try Policy.load(text: """
        policy: api
        token:
          algorithms: [HS256]
          keys: {secret: '${env:API_SECRET}'}
          issuer: https://issuer.example
          audience: api
          claims:
            scope: {contains: read}
        outputs:
          user: claims.sub
        """, file: "api.yaml", environment: ["API_SECRET": secret])
        let router = Router(context: Context.self)
        router.add(middleware: PolicyMiddleware(policy: policy))
        router.get("/orders") { _, context in "orders of \(context.policyOutputs["user"]?.stringValue ?? "nobody")" }
        try await Self.serve(router) { (port: Int) async throws in
            func get(_ token: String?) async throws -> (Int, String, String?) {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/orders")!)
                if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
                let (data, response) = try await URLSession.shared.data(for: request)
                let http = try #require(response as? HTTPURLResponse)
                return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "WWW-Authenticate"))
            }
            let ok = try await get(try Self.token(scope: "read"))
            #expect(ok.0 == 200 && ok.1 == "orders of alice")
            let denied = try await get(try Self.token(scope: "write"))
            #expect(denied.0 == 403 && denied.2 == #"Bearer error="insufficient_scope", error_description="claim_mismatch""#)
            let expired = try await get(try Self.token(scope: "read", expires: -3600))
            #expect(expired.0 == 401 && expired.2 == #"Bearer error="invalid_token", error_description="token_expired""#)
            let missing = try await get(nil)
            #expect(missing.0 == 401 && missing.2 == "Bearer")
        }
    }

    @Test("the request is judged as it arrived: a client's X-Forwarded-Uri is not believed, and ';' or '..' spellings of a path are refused")
    func directRequest() async throws {
        let policy = try Policy.load(text: """
        policy: public-only
        request:
          path: {prefix: /public/}
        """, file: "public.yaml", environment: [:])
        let router = Router(context: Context.self)
        router.add(middleware: PolicyMiddleware(policy: policy))
        router.get("/**") { request, _ in "served \(request.uri.path)" }
        try await Self.serve(router) { (port: Int) async throws in
            func get(_ path: String, headers: [String: String] = [:]) async throws -> Int {
                var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                let (_, response) = try await URLSession.shared.data(for: request)
                return try #require(response as? HTTPURLResponse).statusCode
            }
            #expect(try await get("/public/page") == 200)
            #expect(try await get("/admin/x") == 403)
            #expect(try await get("/admin/x", headers: ["X-Forwarded-Uri": "/public/x", "X-Forwarded-Host": "public.example"]) == 403)
            #expect(try await get("/public;x/page") == 403)
            // Hummingbird's router matches the path as sent: a dot segment would let the policy
            // judge /public/x while the router serves /admin/**.
            for dotted in ["/admin/../public/x", "/admin/%2e%2e/public/x", "/admin/secret/../../public/x", "/admin//../public/x", "/public/..;/admin/x"] {
                let (status, body) = try await RawConnection.exchange(port: port, ["GET \(dotted) HTTP/1.1", "Host: 127.0.0.1"])
                #expect(status == 400 && body.contains(#""code":"target_invalid""#), "\(dotted): \(status) \(body)")
            }
        }
    }
}
