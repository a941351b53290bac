@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// Request paths are normalised before `path` matchers see them (RFC 3986 §5.2.4, merged
/// slashes, encoded slashes and NUL refused by default), so a `not` or a `prefix` cannot be
/// walked around with spellings the server behind resolves to the same resource.
@Suite("Request paths")
struct RequestPathTests {
    static func policy(_ section: String = "", rules: String) throws -> Policy {
        try Policy.load(text: "policy: paths\nrequest:\n  method: GET\n\(section)rules:\n\(rules)", file: "paths.yaml", environment: [:])
    }

    static func valid(_ policy: Policy, _ url: String) throws -> Verdict {
        try policy.evaluateNow(subjects: [RequestSubject(json: Array(#"{"method": "GET", "url": "\#(url)", "headers": {}}"#.utf8))], now: UnixTime(seconds: TokenFixture.now))
    }

    @Test("not: {path: {prefix: /admin}} refuses every spelling of /admin: dot segments, encoded dots, doubled slashes, encoded slashes")
    func adminCannotBeWalkedAround() throws {
        let policy = try Self.policy(rules: "  - not: {request: {path: {prefix: /admin}}}\n")
        #expect(try Self.valid(policy, "/public/page").valid)
        #expect(try Self.valid(policy, "/administrator-docs/../public").valid)
        for url in ["/admin", "/public/../admin", "/./admin", "//admin", "/public/%2e%2e/admin", "/public/%2E%2E/admin/x", "/%2e/admin",
                    "/a/b/../../admin", "/../admin", "https://hub.example.com//admin/", "/admin%2Fsecrets", "/public%2F..%2Fadmin", "/public/%5C../admin"] {
            let verdict = try Self.valid(policy, url)
            #expect(!verdict.valid, "\(url) passed")
        }
    }

    @Test("suffix: /authorize does not accept a NUL before the suffix, under any setting")
    func nul() throws {
        for section in ["", "  path_normalization: {escaped_slashes: keep}\n", "  path_normalization: {escaped_slashes: unescape}\n"] {
            let policy = try Self.policy(section, rules: "  - request: {path: {suffix: /authorize}}\n")
            #expect(try Self.valid(policy, "/oauth/authorize").valid)
            let verdict = try Self.valid(policy, "/admin%00/authorize")
            #expect(!verdict.valid && verdict.codes.contains(.urlInvalid), "\(section): \(verdict.findings.map(\.message))")
        }
    }

    @Test("the settings: escaped slashes kept or unescaped, slashes merged or not; RFC 3986 §5.2.4 examples")
    func settings() throws {
        let reading = { (options: PathNormalization, path: Substring) in try RequestPath.normalize(path, options).get() }
        #expect(try reading(.standard, "/a/b/c/./../../g") == "/a/g")
        #expect(try reading(.standard, "/mid/content=5/../6") == "/mid/6")
        #expect(try reading(.standard, "/a//b///c/") == "/a/b/c/")
        #expect(try reading(.standard, "/a/b/..") == "/a/")
        #expect(try reading(PathNormalization(mergeSlashes: false), "/a//b") == "/a//b")
        #expect(try reading(PathNormalization(escapedSlashes: .keep), "/a%2fb/../c") == "/c")
        #expect(try reading(PathNormalization(escapedSlashes: .keep), "/a%2fb") == "/a%2Fb")
        #expect(try reading(PathNormalization(escapedSlashes: .unescape), "/a%2Fb/../c") == "/a/c")
        #expect(throws: RequestPath.Refusal.self) { try reading(.standard, "/a%2Fb") }
        let kept = try Self.policy("  path_normalization: {escaped_slashes: keep}\n", rules: "  - request: {path: /files/a%2Fb}\n")
        #expect(try Self.valid(kept, "/files/a%2fb").valid)
        let unmerged = try Self.policy("  path_normalization: {merge_slashes: false}\n", rules: "  - not: {request: {path: {prefix: /admin}}}\n")
        #expect(try Self.valid(unmerged, "//admin").valid)
        #expect(throws: PolicyDiagnostics.self) { try Self.policy("  path_normalization: {escaped_slashes: drop}\n", rules: "  - request: {path: /x}\n") }
    }

    @Test("';' path parameters are refused by default with their own code; strip cuts them per segment and reads '..;' as '..'")
    func pathParameters() throws {
        let policy = try Self.policy(rules: "  - not: {request: {path: {prefix: /admin/}}}\n")
        #expect(try Self.valid(policy, "/public/page").valid)
        for url in ["/admin;x/users", "/admin;jsessionid=1", "/public/..;/admin/users", "/.;/admin/users", "/public;/page", "/public/a%3Bb"] {
            let verdict = try Self.valid(policy, url)
            #expect(!verdict.valid && verdict.codes == [.pathParameter], "\(url): \(verdict.findings.map(\.message))")
        }
        let stripped = try Self.policy("  path_normalization: {path_parameters: strip}\n", rules: "  - not: {request: {path: {prefix: /admin/}}}\n")
        for url in ["/admin;x/users", "/admin;jsessionid=1/x", "/public/..;/admin/users", "/.;/admin/users", "/public/%2e%2e;x/admin/"] {
            #expect(!(try Self.valid(stripped, url).valid), "\(url) passed under strip")
        }
        #expect(try Self.valid(stripped, "/public;v=1/page").valid)
        let reading = { (path: Substring) in try RequestPath.normalize(path, PathNormalization(pathParameters: .strip)).get() }
        #expect(try reading("/a;x/b;y=1/c") == "/a/b/c")
        #expect(try reading("/a/..;/b") == "/b")
        // An encoded ';' is text to a servlet container: it stays in its segment.
        #expect(try reading("/a%3Bx/b") == "/a;x/b")
        #expect(throws: PolicyDiagnostics.self) { try Self.policy("  path_normalization: {path_parameters: keep}\n", rules: "  - request: {path: /x}\n") }
    }

    @Test("'..' right after '//' is refused when slashes merge: merged first it removes one segment, as RFC 3986 reads it another")
    func dotDotAfterDoubleSlash() throws {
        for path in ["/admin//../public", "/admin/x//../../public", "/admin/x/..//../public"] {
            #expect(throws: RequestPath.Refusal.self, "\(path)") { try RequestPath.normalize(Substring(path), .standard).get() }
        }
        // Unmerged, the empty segment is a segment, as RFC 3986 §5.2.4 has it.
        #expect(try RequestPath.normalize("/admin//../public", PathNormalization(mergeSlashes: false)).get() == "/admin/public")
        #expect(try RequestPath.normalize("/admin//x/../public", .standard).get() == "/admin/public")
    }

    @Test("a path that climbs above the root is refused, under every setting")
    func aboveRoot() throws {
        for options in [PathNormalization.standard, PathNormalization(mergeSlashes: false), PathNormalization(escapedSlashes: .unescape, pathParameters: .strip)] {
            for path in ["/..", "/../admin", "/a/../../admin", "/%2e%2e/x", "/a/./../.."] {
                #expect(throws: RequestPath.Refusal.self, "\(path)") { try RequestPath.normalize(Substring(path), options).get() }
            }
            #expect(try RequestPath.normalize("/a/..", options).get() == "/")
        }
        if case .success = RequestTarget.parse("/a/../../b") { Issue.record("a target above the root parsed") }
        let verdict = try Self.valid(try Self.policy(rules: "  - request: {path: {prefix: /}}\n"), "/../etc/passwd")
        #expect(!verdict.valid && verdict.codes.contains(.urlInvalid))
    }
}
