import Foundation
import KeyServer
import PolicyRuntime
import PolicyJOSE
import PolicyServer
import Testing

/// Forward auth as an attacker calls it: the route and the policy read one parse of the original
/// request, repeated headers are refused, and nothing the client sends picks a requirement.
@Suite("Forward auth front")
struct ForwardAuthFrontTests {
    static let here = SourceLocation(file: "serve.yaml", line: 1, column: 1)

    /// The fixture's policies plus `admin` (scope admin), `scoped` (the scope is an input) and
    /// `strict` (fail_fast, scope orders:write).
    static func morePolicies(_ fixture: PolicyServerTests.Fixture) throws {
        let token = PolicyServerTests.Fixture.tokenSection
        try ("policy: admin\n" + token("admin")).write(toFile: fixture.directory + "/admin.yaml", atomically: true, encoding: .utf8)
        try ("policy: scoped\ninputs:\n  required_scope: {required: false}\n" + token("'${required_scope}'"))
            .write(toFile: fixture.directory + "/scoped.yaml", atomically: true, encoding: .utf8)
        try ("policy: strict\nmode: fail_fast\n" + token("orders:write")).write(toFile: fixture.directory + "/strict.yaml", atomically: true, encoding: .utf8)
    }

    /// Sends `head` (request line and header lines) to the server at `base`; the status and body.
    static func raw(_ base: URL, _ head: [String]) async throws -> (Int, String) {
        try await RawConnection.exchange(port: base.port!, head + ["Host: 127.0.0.1"])
    }

    @Test("routes match the normalised host and path: no spelling of /admin or of the admin host reaches the user route")
    func routingSpellings() async throws {
        let routes = [
            ServeConfiguration.Route(host: "admin.example.com", policy: "admin", location: Self.here),
            ServeConfiguration.Route(pathPrefix: "/admin/", policy: "admin", location: Self.here),
            ServeConfiguration.Route(pathPrefix: "/", policy: "api", location: Self.here),
        ]
        try await PolicyServerTests.withServer(routes: routes, prepare: Self.morePolicies) { base, fixture in
            let authz = base.appendingPathComponent("v1/authz")
            let user = "Bearer \(try fixture.token())"
            func status(uri: String, host: String = "app.example.com") async throws -> (Int, String) {
                let (status, _, body) = try await PolicyServerTests.call(authz, headers: ["Authorization": user, "X-Forwarded-Uri": uri, "X-Forwarded-Host": host])
                return (status, body)
            }
            #expect(try await status(uri: "/orders/1").0 == 200)
            #expect(try await status(uri: "/admin/users").0 == 403)
            for spelling in ["/%61dmin/users", "//admin/users", "/admin//users", "/admin/", "/admin", "/admin?x=1"] {
                #expect(try await status(uri: spelling).0 == 403, "\(spelling) reached the user route")
            }
            for host in ["admin.example.com.", "ADMIN.example.COM", "admin.example.com:8443"] {
                #expect(try await status(uri: "/orders/1", host: host).0 == 403, "host \(host) reached the user route")
            }
            // Dot segments, however written: a server behind that routes on the raw path, or keeps
            // `//`, would serve another path than the one routed.
            for uri in ["/./admin/users", "/public/../admin/users", "/public/%2e%2e/admin/users", "/public/%2E%2E/admin/users", "/admin//../public",
                        "/admin/x/..//../public", "/admin/../public/x", "/public/.%2e/admin", "/public/..;x/admin"] {
                let (answer, body) = try await status(uri: uri)
                #expect(answer == 400 && body.contains(#""code":"target_invalid""#) || body.contains(#""code":"path_parameter""#), "\(uri): \(answer) \(body)")
            }
            for (uri, code) in [("/admin;x/users", "path_parameter"), ("/admin;jsessionid=1", "path_parameter"), ("/public/..;/admin/users", "target_invalid"),
                                ("/.;/admin/users", "target_invalid"), ("/admin%3Bx/users", "path_parameter"), ("/..", "target_invalid"),
                                ("/public/../../admin/users", "target_invalid"), ("/admin%2Fusers", "target_invalid"), ("admin/users", "target_invalid"),
                                ("/admin/%zz", "target_invalid"), ("http://app.example.com/admin/users", "target_invalid")] {
                let (answer, body) = try await status(uri: uri)
                #expect(answer == 400 && body.contains(#""code":"\#(code)""#), "\(uri): \(answer) \(body)")
            }
            for host in ["admin.example.com:x", "admin.example.com..", "admin example.com", "admin.example.com:1:2", "%61dmin.example.com"] {
                let (answer, body) = try await status(uri: "/orders/1", host: host)
                #expect(answer == 400 && body.contains(#""code":"host_invalid""#), "host '\(host)': \(answer) \(body)")
            }
            // Without the original target there is nothing to route: never a fallback to '/'.
            let (untargeted, _, body) = try await PolicyServerTests.call(authz, headers: ["Authorization": user])
            #expect(untargeted == 400 && body.contains(#""code":"target_missing""#))
            // Without X-Forwarded-Host, never the sidecar's own Host, when routes match hosts.
            let (unhosted, _, hostBody) = try await PolicyServerTests.call(authz, headers: ["Authorization": user, "X-Forwarded-Uri": "/orders/1"])
            #expect(unhosted == 400 && hostBody.contains(#""code":"host_missing""#))
        }
    }

    @Test("a repeated forwarded header or Authorization is refused, never joined or picked from")
    func repeatedHeaders() async throws {
        let routes = [ServeConfiguration.Route(pathPrefix: "/admin/", policy: "admin", location: Self.here),
                      ServeConfiguration.Route(pathPrefix: "/", policy: "api", location: Self.here)]
        try await PolicyServerTests.withServer(routes: routes, prepare: Self.morePolicies) { base, fixture in
            let user = "Authorization: Bearer \(try fixture.token())"
            #expect(try await Self.raw(base, ["GET /v1/authz HTTP/1.1", user, "X-Forwarded-Uri: /orders"]).0 == 200)
            for repeated in [["X-Forwarded-Uri: /orders", "X-Forwarded-Uri: /admin/x"], ["X-Forwarded-Uri: /orders", "X-Forwarded-Host: a.example", "X-Forwarded-Host: admin.example"],
                             ["X-Forwarded-Uri: /orders", "X-Forwarded-Method: GET", "X-Forwarded-Method: DELETE"],
                             ["X-Forwarded-Uri: /orders", "X-Forwarded-Proto: https", "X-Forwarded-Proto: http"], ["X-Forwarded-Uri: /orders", user]] {
                let (status, body) = try await Self.raw(base, ["GET /v1/authz HTTP/1.1", user] + repeated)
                #expect(status == 400 && body.contains(#""code":"header_repeated""#), "\(repeated): \(status) \(body)")
            }
            // The named endpoint too, and Envoy's appended target beside an X-Forwarded-Uri.
            #expect(try await Self.raw(base, ["GET /v1/authz/api HTTP/1.1", user, "X-Forwarded-Uri: /a", "X-Forwarded-Uri: /b"]).0 == 400)
            let (ambiguous, body) = try await Self.raw(base, ["GET /v1/authz/admin-paths/admin/x HTTP/1.1", "X-Forwarded-Uri: /public/x"])
            #expect(ambiguous == 400 && body.contains(#""code":"target_ambiguous""#))
            let (badMethod, _) = try await Self.raw(base, ["GET /v1/authz HTTP/1.1", user, "X-Forwarded-Uri: /orders", "X-Forwarded-Method: GET /admin"])
            #expect(badMethod == 400)
            let (badProto, _) = try await Self.raw(base, ["GET /v1/authz HTTP/1.1", user, "X-Forwarded-Uri: /orders", "X-Forwarded-Proto: ftp"])
            #expect(badProto == 400)
        }
    }

    @Test("an input read from a header is required unless declared optional; repeated, it is refused")
    func headerInputs() async throws {
        var required = ServeConfiguration.Route(pathPrefix: "/orders/", policy: "scoped", location: Self.here)
        required.inputs = ["required_scope": .header("X-Required-Scope", optional: false)]
        var optional = ServeConfiguration.Route(pathPrefix: "/reports/", policy: "scoped", location: Self.here)
        optional.inputs = ["required_scope": .header("X-Required-Scope", optional: true)]
        try await PolicyServerTests.withServer(routes: [required, optional], prepare: Self.morePolicies) { base, fixture in
            let authz = base.appendingPathComponent("v1/authz")
            let user = "Bearer \(try fixture.token())"
            let (missing, _, body) = try await PolicyServerTests.call(authz, headers: ["Authorization": user, "X-Forwarded-Uri": "/orders/1"])
            #expect(missing == 400 && body.contains(#""code":"input_missing""#) && body.contains("X-Required-Scope"))
            let (set, _, _) = try await PolicyServerTests.call(authz, headers: ["Authorization": user, "X-Forwarded-Uri": "/orders/1", "X-Required-Scope": "admin"])
            #expect(set == 403)
            let (granted, _, _) = try await PolicyServerTests.call(authz, headers: ["Authorization": user, "X-Forwarded-Uri": "/orders/1", "X-Required-Scope": "read"])
            #expect(granted == 200)
            let (skipped, _, _) = try await PolicyServerTests.call(authz, headers: ["Authorization": user, "X-Forwarded-Uri": "/reports/1"])
            #expect(skipped == 200)
            let (repeated, body2) = try await Self.raw(base, ["GET /v1/authz HTTP/1.1", "Authorization: \(user)", "X-Forwarded-Uri: /orders/1",
                                                        "X-Required-Scope: read", "X-Required-Scope: admin"])
            #expect(repeated == 400 && body2.contains(#""code":"header_repeated""#))
        }
    }

    @Test("fail_fast checks the signature before claims: a forgery is 401 signature_invalid, a genuine token without the scope 403")
    func verificationFirst() async throws {
        try await PolicyServerTests.withServer(prepare: Self.morePolicies) { base, fixture in
            let authz = base.appendingPathComponent("v1/authz/strict")
            let genuine = try fixture.token()
            let (denied, deniedHeaders, _) = try await PolicyServerTests.call(authz, headers: ["Authorization": "Bearer \(genuine)"])
            #expect(denied == 403 && deniedHeaders["www-authenticate"] == #"Bearer error="insufficient_scope", error_description="claim_mismatch""#)
            // The same claims under a signature of another key.
            let other = try JWK.generate(for: .es256, kid: "k1")
            let payload = try Base64URL.decode(genuine.split(separator: ".")[1])
            let forged = try CompactJWS.sign(payload: payload, header: JSONObject(["kid": .string("k1")]), algorithm: .es256, key: other)
            let (refused, refusedHeaders, _) = try await PolicyServerTests.call(authz, headers: ["Authorization": "Bearer \(forged)"])
            #expect(refused == 401 && refusedHeaders["www-authenticate"] == #"Bearer error="invalid_token", error_description="signature_invalid""#)
            let (_, _, verdict) = try await PolicyServerTests.call(base.appendingPathComponent("v1/check/strict"), method: "POST", body: #"{"token": "\#(forged)"}"#)
            #expect(verdict.contains(#""code":"signature_invalid""#) && !verdict.contains("orders:write") && !verdict.contains("claim_mismatch"))
            // collect_all too: no claim of a token that did not verify is judged.
            let unscoped = try CompactJWS.sign(payload: try Base64URL.decode(try fixture.token(["scope": .string("none")]).split(separator: ".")[1]),
                                               header: JSONObject(["kid": .string("k1")]), algorithm: .es256, key: other)
            let (_, _, collected) = try await PolicyServerTests.call(base.appendingPathComponent("v1/check/api"), method: "POST", body: #"{"token": "\#(unscoped)"}"#)
            #expect(collected.contains(#""code":"signature_invalid""#) && !collected.contains("claim_mismatch") && !collected.contains(#"contain "read""#))
        }
    }

    @Test("ignore_case routes every ASCII case of a prefix, for servers that match paths so")
    func ignoreCase() async throws {
        var admin = ServeConfiguration.Route(pathPrefix: "/admin/", policy: "admin", location: Self.here)
        admin.ignoreCase = true
        let routes = [admin, ServeConfiguration.Route(pathPrefix: "/", policy: "api", location: Self.here)]
        try await PolicyServerTests.withServer(routes: routes, prepare: Self.morePolicies) { base, fixture in
            for uri in ["/ADMIN/users", "/Admin/users", "/aDmIn", "/admin/x"] {
                let (status, _, _) = try await PolicyServerTests.call(base.appendingPathComponent("v1/authz"),
                                                                      headers: ["Authorization": "Bearer \(try fixture.token())", "X-Forwarded-Uri": uri])
                #expect(status == 403, "\(uri) reached the user route")
            }
        }
    }

    @Test("--check refuses routes that would refuse every call or send nothing: a required input not supplied or read as optional, bad header names, unknown outputs")
    func routeChecks() throws {
        let fixture = try PolicyServerTests.Fixture()
        try Self.morePolicies(fixture)
        try ("policy: needs\ninputs:\n  tenant: {required: true}\n" + PolicyServerTests.Fixture.tokenSection(scope: "read"))
            .write(toFile: fixture.directory + "/needs.yaml", atomically: true, encoding: .utf8)
        let file = fixture.directory + "/../serve-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        policies: \(fixture.directory)
        routes:
          - match: {path_prefix: /a/}
            policy: needs
          - match: {path_prefix: /b/}
            policy: needs
            inputs: {tenant: {header: X-Tenant, optional: true}}
          - match: {path_prefix: /c/}
            policy: api
            outputs: {user: X-User, nothing: X-Nothing}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ServeConfiguration(file: file)
        let problems = configuration.problems(with: try PolicySet(directory: fixture.directory, keyCache: JWKSCache())).filter { $0.severity == .error }
        #expect(problems.map { "\($0.location.line) \($0.message)" } == [
            "3 policy 'needs' requires the input 'tenant', which the route does not supply",
            "5 policy 'needs' requires the input 'tenant'; the route may not read it as optional",
            "8 policy 'api' has no output 'nothing' to send as a header",
        ])
        try """
        policies: \(fixture.directory)
        routes:
          - match: {path_prefix: "/ädmin/"}
            policy: api
            inputs: {scope: {header: "X Bad"}}
            outputs: {user: "Bad Header"}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServeConfiguration(file: file)
            Issue.record("bad header names were read")
        } catch {
            #expect(error.sorted.map { "\($0.location.line):\($0.location.column) \($0.message)" } == [
                "3:26 'path_prefix': the prefix has a character URLs do not allow (byte 0xc3 at position 2)",
                "5:30 'X Bad' is not a header name (letters, digits and !#$%&'*+-.^_`|~)",
                "6:21 'Bad Header' is not a header name (letters, digits and !#$%&'*+-.^_`|~)",
            ])
        }
    }
}
