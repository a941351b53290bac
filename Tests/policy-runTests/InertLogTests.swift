import Foundation
import KeyServer
import PolicyRuntime
import PolicyJOSE
import Testing

/// Standard error and the server log are inert: text from a key document (a `kid`, a discovery
/// document's `issuer`) or from a policy file reaches them with its control characters escaped,
/// so it can neither write a forged log line nor repaint a terminal.
@Suite("Inert logs")
struct InertLogTests {
    /// ESC, BEL, CR and LF, and the line they would forge.
    static let hostileJSON = #"\u001b[31mred\u0007\r\nFORGED line"#
    static let escaped = #"\u{001B}[31mred\u{0007}\r\nFORGED line"#

    /// `text` holds no control character but line breaks, and no line starts with what the input forged.
    static func expectInert(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(!text.unicodeScalars.contains { InertText.needsEscape($0) && $0 != "\n" }, "\(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("FORGED") }, "\(text)", sourceLocation: sourceLocation)
    }

    static func temporaryFile(_ text: String, name: String = "policy") throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("a kid from a JWKS on 127.0.0.1: check's warning and keys' error and warning are escaped")
    func hostileKid() async throws {
        let server = try await KeyServer()
        // Off its curve, the key is unusable: the set has none, and the failure quotes the kid.
        await server.json("/jwks", #"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"\#(Self.hostileJSON)"}]}"#)
        let policy = try KeysCommandTests.remotePolicy(server.url("/jwks"))
        defer { try? FileManager.default.removeItem(atPath: policy) }
        let check = try await KeysCommandTests.run(["check", "--policy", policy, "--now", "2026-11-21T09:30:00Z", "@Policies/examples/sample-id-token.jwt"])
        #expect(check.status == 1)
        #expect(check.stderr.contains("key set fetch failed") && check.stderr.contains("no_usable_key") && check.stderr.contains(Self.escaped),
                "\(check.stderr)")
        Self.expectInert(check.stderr)
        Self.expectInert(check.stdout)
        let keys = try await KeysCommandTests.run(["keys", "--policy", policy])
        #expect(keys.status == 1)
        #expect(keys.stderr.contains("key set fetch failed") && keys.stderr.contains("error: jwks_uri"), "\(keys.stderr)")
        #expect(keys.stderr.components(separatedBy: Self.escaped).count - 1 == 2, "\(keys.stderr)")
        Self.expectInert(keys.stderr)
        await server.stop()
    }

    @Test("a discovery document's issuer from 127.0.0.1: keys' error and warning are escaped")
    func hostileIssuer() async throws {
        let server = try await KeyServer()
        let issuer = server.url("").absoluteString
        await server.json("/.well-known/openid-configuration", #"{"issuer": "\#(issuer)\#(Self.hostileJSON)", "jwks_uri": "\#(server.url("/jwks").absoluteString)"}"#)
        let policy = try Self.temporaryFile("""
        policy: remote-discovery
        token:
          algorithms: [RS256]
          keys: {discovery: "\(issuer)", allow_http: true, max_wait: 30s}
          issuer: https://dev-123.okta.com/oauth2/default
          audience: 0oa1b2c3d4
        """)
        defer { try? FileManager.default.removeItem(atPath: policy) }
        let keys = try await KeysCommandTests.run(["keys", "--policy", policy])
        #expect(keys.status == 1)
        #expect(keys.stderr.contains("issuer_mismatch") && keys.stderr.components(separatedBy: Self.escaped).count - 1 == 2, "\(keys.stderr)")
        Self.expectInert(keys.stderr)
        await server.stop()
    }

    @Test("a policy file's control characters: check's and lint's diagnostics escape the message and the source line")
    func hostilePolicyFile() throws {
        // A name written with YAML escapes, which the message quotes; a line holding a raw
        // right-to-left override, which libyaml lets through and the diagnostic shows; and a raw
        // ESC, which libyaml refuses.
        let named = try Self.temporaryFile("policy: \"bad\\e[31mred\\a\\r\\nFORGED line\"\ntoken: {algorithms: [ES256], keys: {jwks_file: k.json}}\n")
        let shown = try Self.temporaryFile("policy: shown\ntoken:\n  audiance: \"x\u{202E}gnp.exe\"\n")
        let raw = try Self.temporaryFile("policy: raw\n# \u{1B}[31mred \u{07}\ntoken: {}\n")
        defer {
            for file in [named, shown, raw] { try? FileManager.default.removeItem(atPath: file) }
        }
        let check = try DecodeCommandTests.run(["check", "--policy", named, "@Policies/examples/sample-id-token.jwt"])
        #expect(check.status == 2 && check.stderr.contains("invalid_value") && check.stderr.contains("'bad" + Self.escaped + "'"), "\(check.stderr)")
        Self.expectInert(check.stderr)
        let shownCheck = try DecodeCommandTests.run(["check", "--policy", shown, "@Policies/examples/sample-id-token.jwt"])
        #expect(shownCheck.status == 2 && shownCheck.stderr.contains("unknown_key") && shownCheck.stderr.contains(#"  audiance: "x\u{202E}gnp.exe""#),
                "\(shownCheck.stderr)")
        Self.expectInert(shownCheck.stderr)
        let rawCheck = try DecodeCommandTests.run(["check", "--policy", raw, "@Policies/examples/sample-id-token.jwt"])
        #expect(rawCheck.status == 2 && rawCheck.stderr.contains("control characters are not allowed"), "\(rawCheck.stderr)")
        Self.expectInert(rawCheck.stderr)
        let lint = try DecodeCommandTests.run(["lint", named, shown, raw])
        #expect(lint.status == 1 && lint.stdout.contains(Self.escaped) && lint.stdout.contains(#"\u{202E}gnp.exe"#), "\(lint.stdout)")
        Self.expectInert(lint.stdout + lint.stderr)
    }

    @Test("policy-serve's reload failure log escapes the policy file's text")
    func hostileReload() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.yaml")
        try "policy: p\ntoken: {algorithms: [ES256], keys: {jwk: {kty: EC, crv: P-256, x: f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU, y: x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0}}, audience: a, issuer: https://i.example}\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = try DecodeCommandTests.binary()
        process.arguments = ["serve", "--policies", folder.path, "--listen", "127.0.0.1:0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func read(until marker: String) -> String {
            var text = ""
            while !text.contains(marker), process.isRunning {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let started = read(until: "serving ")
        #expect(started.contains("serving p on 127.0.0.1:"), "\(started)")
        try "policy: \"p\\e[31mred\\a\\r\\nFORGED line\"\ntoken: {}\n".write(to: file, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        let logged = read(until: "reload failed")
        process.terminate()
        process.waitUntilExit()
        #expect(logged.contains("reload failed") && logged.contains("'p" + Self.escaped + "'"), "\(logged)")
        Self.expectInert(logged)
    }
}
