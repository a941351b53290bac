import Foundation
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
@testable import PolicyPlayground
import Testing
import Hummingbird
import HTTPTypes

/// The playground's calls as the page makes them, on a copy of the bundled policies: typed text
/// is compiled as the file it stands for and bounded like one, and nothing is written until Save.
@Suite("Playground")
final class PlaygroundTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let folder: URL
    let playground: Playground

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("playground-tests-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.packageRoot.appendingPathComponent("Policies"), to: folder)
        playground = try Playground(workspace: PlaygroundWorkspace(directory: folder.path))
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name + ".yaml"), encoding: .utf8)
    }

    static func call(_ members: KeyValuePairs<String, String>) -> JSONObject {
        var object = JSONObject()
        for (name, value) in members { object.set(name, .string(value)) }
        return object
    }

    @Test("a misspelt key is a diagnostic on its line and column, with the suggestion; a base's own problem is not the editor's")
    func diagnostics() throws {
        let source = try text("okta-id-token").replacingOccurrences(of: "  issuer:", with: "  isuer:")
        let line = source.components(separatedBy: "\n").firstIndex { $0.hasPrefix("  isuer:") }! + 1
        let answer = try playground.compile(Self.call(["name": "okta-id-token", "text": source]))
        #expect(answer.objectValue?["policy"] == .null)
        let diagnostics = try #require(answer.objectValue?["diagnostics"]?.arrayValue?.compactMap { $0.objectValue })
        let misspelt = try #require(diagnostics.first { $0["code"]?.stringValue == "unknown_key" })
        #expect(misspelt["line"]?.numberValue?.int64Value == Int64(line) && misspelt["column"]?.numberValue?.int64Value == 3)
        #expect(misspelt["hint"]?.stringValue == "did you mean 'issuer'?" && misspelt["in_editor"] == .bool(true))

        let extended = try playground.compile(Self.call(["name": "okta-id-token", "text": try text("okta-id-token").replacingOccurrences(of: "extends: oidc-id-token", with: "extends: no-such-base")]))
        let missing = try #require(extended.objectValue?["diagnostics"]?.arrayValue?.first?.objectValue)
        #expect(missing["message"]?.stringValue?.contains("no-such-base") == true)

        let clean = try playground.compile(Self.call(["name": "okta-id-token", "text": try text("okta-id-token")]))
        #expect(clean.objectValue?["policy"] == .string("okta-id-token") && clean.objectValue?["subjects"] == .array([.string("token")]))
    }

    @Test("typed text reads key files from the directory only, as a policy file there would")
    func fileRoots() throws {
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString).jwks.json")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("keys/test-rs256.jwks.json"), to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        for path in [outside.path, "../\(outside.lastPathComponent)"] {
            let source = try text("okta-id-token").replacingOccurrences(of: "keys/test-rs256.jwks.json", with: path)
            let answer = try playground.compile(Self.call(["name": "okta-id-token", "text": source]))
            #expect(answer.objectValue?["policy"] == .null, "\(path)")
            let messages = answer.objectValue?["diagnostics"]?.arrayValue?.compactMap { $0.objectValue?["message"]?.stringValue } ?? []
            #expect(messages.contains { $0.contains("outside") }, "\(messages)")
        }
    }

    @Test("the sample token at its time is valid, with its trace, the key that verified it and its dates; what the user typed wrong is answered, not refused")
    func evaluate() async throws {
        let token = try String(contentsOf: folder.appendingPathComponent("examples/sample-id-token.jwt"), encoding: .utf8)
        var call = Self.call(["name": "okta-id-token", "text": try text("okta-id-token"), "kind": "token", "subject": token,
                              "now": "2026-11-21T09:30:00Z", "inputs": #"{"nonce": "n-0S6_WzA2Mj"}"#])
        let answer = try #require(try await playground.evaluate(call).objectValue)
        let verdict = try #require(answer["verdict"]?.objectValue)
        #expect(verdict["valid"] == .bool(true))
        let trace = try #require(verdict["trace"]?.objectValue)
        #expect(trace["key"]?.objectValue?["kid"] == .string("test-rs256"))
        #expect((trace["rules"]?.arrayValue?.count ?? 0) > 5)
        #expect(answer["decoded"]?.objectValue?["dates"]?.objectValue?["exp"] == .string("2026-11-21T10:00:00Z"))

        // Evaluating again is not a replay of a one-time value: each call has its own store.
        #expect(try await playground.evaluate(call).objectValue?["verdict"]?.objectValue?["valid"] == .bool(true))

        call.set("now", .string("next tuesday"))
        let badTime = try #require(try await playground.evaluate(call).objectValue)
        #expect(badTime["verdict"] == .null && badTime["problem"]?.objectValue?["code"] == .string("bad_time"))
        call.set("now", .string(""))
        call.set("inputs", .string("{nonce"))
        #expect(try await playground.evaluate(call).objectValue?["problem"]?.objectValue?["code"] == .string("bad_inputs"))
        call.set("inputs", .string("{}"))
        let missing = try #require(try await playground.evaluate(call).objectValue?["problem"]?.objectValue)
        #expect(missing["message"]?.stringValue?.contains("nonce") == true, "\(missing)")
    }

    @Test("the test file's cases run against the edited text, not the file; a policy without tests says so")
    func tests() async throws {
        let edited = try text("okta-id-token").replacingOccurrences(of: "leeway: 300s", with: "leeway: 0s")
        let answer = try #require(try await playground.runTests(Self.call(["name": "okta-id-token", "text": edited])).objectValue)
        let cases = try #require(answer["cases"]?.arrayValue?.compactMap { $0.objectValue })
        let failed = cases.filter { $0["outcome"] == .string("fail") }
        #expect(failed.map { $0["name"]?.stringValue } == ["expiry within the 300 s leeway is accepted"])
        #expect(failed.first?["differences"]?.arrayValue?.first == .string("valid: expected true, got false"))
        // A case with a literal token carries it, with its time and inputs, for the page to judge.
        let sample = try #require(cases.first { $0["name"] == .string("the sample ID token from Okta is valid") })
        #expect(sample["token"]?.stringValue?.hasPrefix("eyJ") == true && sample["now"] == .string("2026-11-21T09:30:00Z"))

        let original = try #require(try await playground.runTests(Self.call(["name": "okta-id-token", "text": try text("okta-id-token")])).objectValue)
        #expect(original["cases"]?.arrayValue?.allSatisfy { $0.objectValue?["outcome"] == .string("pass") } == true)
        #expect(try text("okta-id-token").contains("leeway: 300s"))

        try "policy: lonely\ntoken: {algorithms: [HS256], keys: {secret: '0123456789abcdef0123456789abcdef'}}\n"
            .write(to: folder.appendingPathComponent("lonely.yaml"), atomically: true, encoding: .utf8)
        let none = try await playground.runTests(Self.call(["name": "lonely", "text": try text("lonely")]))
        #expect(none.objectValue?["file"] == .null)
    }

    @Test("names stay in the directory; Save replaces a regular file whole, and refuses a link, a FIFO or a name that leaves")
    func workspace() throws {
        for name in ["../escape", "a/b", ".hidden", "x.test", "", String(repeating: "a", count: 101), "a b", "é"] {
            #expect(!PlaygroundWorkspace.isValidName(name), "\(name)")
            #expect(throws: Playground.Refusal.self) { try self.playground.save(Self.call(["name": name, "text": "policy: x\n"])) }
        }
        for name in ["okta-id-token", "v1.2_policy", "A"] { #expect(PlaygroundWorkspace.isValidName(name)) }
        let entries = playground.workspace.entries()
        #expect(entries.contains(PlaygroundWorkspace.Entry(name: "okta-id-token", hasTests: true)))
        #expect(!entries.contains { $0.name.hasSuffix(".test") })

        let saved = try playground.save(Self.call(["name": "pkce-s256", "text": "policy: pkce-s256\n# saved\n"]))
        #expect(saved.objectValue?["saved"] == .string(folder.appendingPathComponent("pkce-s256.yaml").path))
        #expect(try text("pkce-s256") == "policy: pkce-s256\n# saved\n")

        // A policy the page started never takes the place of one already there.
        var fresh = Self.call(["name": "pkce-s256", "text": "policy: pkce-s256\n# new\n"])
        fresh.set("new", .bool(true))
        #expect { try self.playground.save(fresh) } throws: { ($0 as? Playground.Refusal)?.code == "exists" }
        #expect(try text("pkce-s256") == "policy: pkce-s256\n# saved\n")
        fresh.set("name", .string("brand-new"))
        _ = try playground.save(fresh)
        #expect(try text("brand-new") == "policy: pkce-s256\n# new\n")

        let target = folder.appendingPathComponent("target.txt")
        try "kept\n".write(to: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("linked.yaml").path, withDestinationPath: target.path)
        #expect(mkfifo(folder.appendingPathComponent("fifo.yaml").path, 0o600) == 0)
        for name in ["linked", "fifo"] {
            #expect { try self.playground.save(Self.call(["name": name, "text": "policy: x\n"])) } throws: { ($0 as? Playground.Refusal)?.code == "not_a_file" }
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "kept\n")
        #expect(throws: Playground.Refusal.self) {
            try self.playground.save(Self.call(["name": "big", "text": String(repeating: "#", count: (1 << 20) + 1)]))
        }
    }

    @Test("only loopback addresses are loopback")
    func loopback() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"] { #expect(PlaygroundServer.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "10.0.0.1", "127.0.0.256", "127.0.0", "0127.0.0.1", "localhost.example", "example.com", ""] {
            #expect(!PlaygroundServer.isLoopback(host), "\(host)")
        }
    }

    @Test("a call without the token, or from another site by its Host, Origin, Sec-Fetch-Site or content type, is refused; the page's own is not")
    func requestGuard() {
        let port = BoundPort()
        port.set(8182)
        let token = String(repeating: "ab", count: 32)
        let guardian = PlaygroundRequestGuard<BasicRequestContext>(token: token, hosts: ["127.0.0.1", "localhost", "[::1]"], port: port)
        func head(_ method: HTTPRequest.Method = .post, _ authority: String? = "127.0.0.1:8182", path: String = "/api/compile", _ fields: [(String, String)]) -> HTTPRequest {
            var request = HTTPRequest(method: method, scheme: "http", authority: authority, path: path)
            for (name, value) in fields { request.headerFields[HTTPField.Name(name)!] = value }
            return request
        }
        let json = ("Content-Type", "application/json"), key = ("X-Playground-Token", token)
        #expect(guardian.refusal(head(.post, "127.0.0.1:8182", [json, key, ("Origin", "http://127.0.0.1:8182"), ("Sec-Fetch-Site", "same-origin")])) == nil)
        #expect(guardian.refusal(head(.get, "localhost:8182", path: "/", [])) == nil)
        #expect(guardian.refusal(head(.get, "localhost:8182", path: "/api/policies", [key])) == nil)
        #expect(guardian.refusal(head(.post, "[::1]:8182", [("Content-Type", "application/json; charset=utf-8"), key])) == nil)
        for (request, why) in [
            (head(.get, "127.0.0.1:8182", path: "/api/policies", []), "token"),
            (head(.post, "127.0.0.1:8182", [json, ("X-Playground-Token", String(token.dropLast()) + "c")]), "token"),
            (head(.post, "evil.example:8182", [json, key]), "Host"),
            (head(.post, "127.0.0.1:9999", [json, key]), "Host"),
            (head(.post, "127.0.0.1", [json, key]), "Host"),
            (head(.post, "localhost:evil", [json, key]), "Host"),
            (head(.post, "[::1]evil.com:8182", [json, key]), "Host"),
            (head(.post, nil, [json, key]), "no Host"),
            (head(.post, "127.0.0.1:8182", [json, key, ("Origin", "https://evil.example")]), "Origin"),
            (head(.post, "127.0.0.1:8182", [json, key, ("Origin", "null")]), "Origin"),
            (head(.post, "127.0.0.1:8182", [json, key, ("Sec-Fetch-Site", "cross-site")]), "Sec-Fetch-Site"),
            (head(.post, "127.0.0.1:8182", [("Content-Type", "text/plain"), key]), "JSON"),
            (head(.post, "127.0.0.1:8182", [("Content-Type", "application/jsonx"), key]), "JSON"),
            (head(.post, "127.0.0.1:8182", [key]), "JSON"),
        ] {
            #expect(guardian.refusal(request)?.contains(why) == true, "\(request.authority ?? "-") \(request.headerFields)")
        }
        // With --allow-remote on another address any name is taken; the token still is not optional.
        let remote = PlaygroundRequestGuard<BasicRequestContext>(token: token, hosts: nil, port: port)
        #expect(remote.refusal(head(.post, "192.0.2.7:8182", [json, key])) == nil)
        #expect(remote.refusal(head(.post, "192.0.2.7:8182", [json]))?.contains("token") == true)
    }
}
