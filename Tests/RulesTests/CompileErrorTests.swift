import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// Every kind of compile error, each located at file:line:column with its key path.
@Suite("Policy compile errors")
struct CompileErrorTests {
    static let keys = "keys: {jwks: \(TokenFixture.shared.jwksJSON)}"

    /// The diagnostics of `text` compiled as `Policies/p.yaml`, beside the bundled policies it may name.
    static func diagnosticsBesideBundledPolicies(_ text: String) -> [Diagnostic] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return diagnostics(text, file: root.appendingPathComponent("Policies/p.yaml").path)
    }

    /// The problems of `text` loaded as the file `a.yaml`, alone in a fresh directory: for a
    /// policy that names itself.
    static func loneFileProblems(_ text: String) throws -> PolicyDiagnostics? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try text.write(to: folder.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        return #expect(throws: PolicyDiagnostics.self) { try Policy.load(file: folder.appendingPathComponent("a.yaml").path, environment: [:]) }
    }

    static func diagnostics(_ text: String, file: String = "p.yaml",
                            environment: [String: String] = ["SECRET": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA"]) -> [Diagnostic] {
        do {
            _ = try Policy.load(text: text, file: file, environment: environment)
            return []
        } catch {
            return error.sorted
        }
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let code: DiagnosticCode
        let line: Int
        var hint: String? = nil
        var testDescription: String { name }
    }

    static let cases: [ErrorCase] = [
        ErrorCase(name: "misspelled key with a hint", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  audiance: x\n",
                  code: .unknownKey, line: 5, hint: "did you mean 'audience'?"),
        ErrorCase(name: "misspelled top-level key", text: "policy: p\ntokn: {}\n", code: .unknownKey, line: 2, hint: "did you mean 'token'?"),
        ErrorCase(name: "duplicate key", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  algorithms: [RS256]\n", code: .duplicateKey, line: 4),
        ErrorCase(name: "tab indentation", text: "policy: p\ntoken:\n\talgorithms: [ES256]\n", code: .yamlSyntax, line: 3,
                  hint: "YAML indentation must use spaces, not tabs"),
        ErrorCase(name: "wrong type", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  issuer: 42\n", code: .wrongType, line: 5),
        ErrorCase(name: "alg none", text: "policy: p\ntoken:\n  algorithms: [none]\n  \(keys)\n", code: .invalidValue, line: 3),
        ErrorCase(name: "unknown algorithm", text: "policy: p\ntoken:\n  algorithms: [RS265]\n  \(keys)\n", code: .invalidValue, line: 3, hint: "did you mean 'RS256'?"),
        ErrorCase(name: "missing algorithms", text: "policy: p\ntoken:\n  \(keys)\n", code: .missingKey, line: 3),
        ErrorCase(name: "missing keys", text: "policy: p\ntoken:\n  algorithms: [ES256]\n", code: .missingKey, line: 3),
        ErrorCase(name: "undeclared input", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  nonce: ${nonse}\n", code: .undeclaredInput, line: 5),
        ErrorCase(name: "env outside keys", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  nonce: ${env:HOME}\n", code: .undeclaredInput, line: 5),
        ErrorCase(name: "unset environment variable", text: "policy: p\ntoken:\n  algorithms: [HS256]\n  keys:\n    secret: ${env:NOPE}\n", code: .environmentMissing, line: 5),
        ErrorCase(name: "secret written in the file", text: "policy: p\ntoken:\n  algorithms: [HS256]\n  keys: {secret: hunter2}\n", code: .invalidValue, line: 4),
        ErrorCase(name: "two key sources", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {jwks_file: a.json, pem_file: b.pem}\n", code: .conflict, line: 4),
        ErrorCase(name: "missing key file", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {jwks_file: nowhere.json}\n", code: .keySource, line: 4),
        ErrorCase(name: "bad duration", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  leeway: 5 minutes\n", code: .wrongType, line: 5),
        ErrorCase(name: "unknown duration unit", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  leeway: 5w\n", code: .invalidValue, line: 5,
                  hint: "use s, m, h or d"),
        ErrorCase(name: "a quoted duration that is not a number", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  leeway: '-300'\n", code: .wrongType, line: 5),
        ErrorCase(name: "bad regex", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  claims: {sub: {matches: '(['}}\n", code: .invalidPattern, line: 5),
        ErrorCase(name: "unknown matcher", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\n  claims: {sub: {prefx: a}}\n", code: .unknownKey, line: 5, hint: "did you mean 'prefix'?"),
        ErrorCase(name: "yes is not a boolean", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {\(keys.dropFirst(7).dropLast()), require_kid: yes}\n", code: .wrongType, line: 4),
        ErrorCase(name: "bad policy name", text: "policy: My Policy\ntoken: {}\n", code: .invalidValue, line: 1),
        ErrorCase(name: "unsupported tag", text: "policy: p\ntoken:\n  algorithms: !!binary AAAA\n", code: .unsupportedTag, line: 3),
        ErrorCase(name: "nothing to check", text: "policy: p\n", code: .missingKey, line: 1),
        ErrorCase(name: "plain http key source", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys:\n    jwks_uri: http://127.0.0.1:8080/jwks\n", code: .insecureSetting, line: 5,
                  hint: "for a loopback test server, add allow_http: true"),
        ErrorCase(name: "relative key source URL", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {discovery: idp.example.com}\n", code: .invalidValue, line: 4),
        ErrorCase(name: "remote option on a local source", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {\(keys.dropFirst(7).dropLast()), cache_ttl: 5m}\n", code: .conflict, line: 4),
        ErrorCase(name: "refetch spacing longer than the TTL", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {jwks_uri: https://idp.example/jwks, cache_ttl: 1m, min_refresh_interval: 2m}\n", code: .conflict, line: 4),
        ErrorCase(name: "max_json_depth past what the parser survives", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {jwks_uri: https://idp.example/jwks}\n  limits: {max_json_depth: 16777216}\n", code: .invalidValue, line: 5),
        ErrorCase(name: "zero timeout", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {jwks_uri: https://idp.example/jwks, timeout: 0}\n", code: .invalidValue, line: 4),
        ErrorCase(name: "x5c without trust", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {x5c: {}}\n", code: .missingKey, line: 4),
        ErrorCase(name: "unreadable x5c trust file", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {x5c: {trust: nowhere.pem}}\n", code: .keySource, line: 4),
        ErrorCase(name: "remote decryption key", text: "policy: p\ntoken:\n  format: jwe\n  decryption:\n    algorithms: [RSA-OAEP-256]\n    encryption: [A256GCM]\n    key: {jwks_uri: https://idp.example/jwks}\n", code: .invalidValue, line: 7),
        ErrorCase(name: "bad combinator", text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(keys)\nrules:\n  - any_of: {}\n", code: .wrongType, line: 6),
    ]

    @Test("compile errors", arguments: cases)
    func compileError(_ row: ErrorCase) {
        let found = Self.diagnostics(row.text)
        let match = found.first { $0.code == row.code && $0.severity == .error }
        #expect(match != nil, "got \(found.map(\.description))")
        #expect(match?.location.line == row.line, "got \(found.map(\.description))")
        #expect(match?.location.file == "p.yaml")
        if let hint = row.hint { #expect(match?.hint == hint) }
    }

    @Test("a billion-laughs file fails fast with alias_budget")
    func billionLaughs() {
        var text = "policy: p\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let start = Date()
        let found = Self.diagnostics(text)
        #expect(found.contains { $0.code == .aliasBudget })
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test("non-UTF-8, oversized and missing files are refused with file_unreadable")
    func unreadable() throws {
        let loader = YAMLLoader(maxFileBytes: 100)
        let attempts: [() throws -> Void] = [
            { _ = try loader.load(bytes: [0x70, 0x3A, 0x20, 0xFF, 0xFE], file: "bad.yaml") },
            { _ = try loader.load(bytes: Array(repeating: 0x20, count: 101), file: "big.yaml") },
            { _ = try Policy.load(file: "/nonexistent/policy.yaml") },
        ]
        for attempt in attempts {
            let error = #expect(throws: PolicyDiagnostics.self) { try attempt() }
            #expect(error?.items.first?.code == .fileUnreadable, "\(error?.items.map(\.description) ?? [])")
        }
    }

    @Test("min_rsa_bits below 2048 compiles with an insecure_setting warning")
    func insecureSetting() throws {
        let keys = "keys: {jwks_file: ../../Policies/keys/test-rs256.jwks.json, min_rsa_bits: 1024}"
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let packageRoot = folder.deletingLastPathComponent().deletingLastPathComponent().path
        let policy = try Policy.load(text: "policy: p\ntoken:\n  algorithms: [RS256]\n  \(keys)\n  audience: api\n", file: folder.appendingPathComponent("p.yaml").path,
                                     fileRoots: FileRoots([packageRoot]))
        #expect(policy.warnings.map(\.code) == [.insecureSetting])
        #expect(policy.warnings.first?.location.line == 4)
    }

    @Test("allow_http compiles for loopback tests with an insecure_setting warning")
    func allowHTTP() throws {
        let policy = try Policy.load(text: "policy: p\ntoken:\n  algorithms: [ES256]\n  keys:\n    jwks_uri: http://127.0.0.1:8080/jwks\n    allow_http: true\n  audience: api\n", file: "p.yaml")
        #expect(policy.warnings.map(\.code) == [.insecureSetting])
        #expect(policy.warnings.first?.location.line == 6)
        #expect(policy.remoteKeySources.map(\.description) == ["jwks_uri http://127.0.0.1:8080/jwks"])
    }

    @Test("unquoted yes/no/on/off stay strings and draw a lint warning")
    func ambiguousScalars() throws {
        let policy = try Policy.load(text: "policy: p\ntoken:\n  algorithms: [ES256]\n  \(Self.keys)\n  claims: {mfa: yes}\n", file: "p.yaml")
        #expect(policy.warnings.contains { $0.code == .ambiguousScalar && $0.location.line == 5 })
        let verdict = try policy.evaluateNow(token: TokenFixture.shared.token(["mfa": .string("yes")]), now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.valid)
    }

    @Test("extends: deep merge, cycles and missing bases")
    func extends() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("extends-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ name: String, _ text: String) throws { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        try write("base.yaml", "policy: base\ntoken:\n  algorithms: [ES256]\n  \(Self.keys)\n  issuer: https://issuer.example\n  claims: {sub: user-1}\n")
        try write("child.yaml", "policy: child\nextends: base\ntoken:\n  claims: {nonce: n-123}\n")
        let child = try Policy.load(file: directory.appendingPathComponent("child.yaml").path)
        let ids = child.root.rules.map(\.id)
        #expect(ids.contains("token.claims.sub") && ids.contains("token.claims.nonce") && ids.contains("token.issuer"))
        #expect(child.root.rules.first { $0.id == "token.issuer" }?.location.file.hasSuffix("base.yaml") == true)
        #expect(try child.evaluateNow(token: TokenFixture.shared.token(), now: UnixTime(seconds: TokenFixture.now)).valid)

        // A key source holds one kind: a child's discovery replaces the base's jwks_file, and
        // options beside it still merge.
        try write("remote.yaml", "policy: remote\nextends: base\ntoken:\n  keys: {discovery: https://issuer.example, cache_ttl: 5m}\n")
        let remote = try Policy.load(file: directory.appendingPathComponent("remote.yaml").path)
        #expect(remote.remoteKeySources.map(\.description) == ["discovery https://issuer.example"])
        #expect(remote.remoteKeySources.first?.cacheTTL == .seconds(300))

        func compileErrors(_ name: String) -> [Diagnostic] {
            let error = #expect(throws: PolicyDiagnostics.self) { try Policy.load(file: directory.appendingPathComponent(name).path) }
            return error?.items ?? []
        }
        try write("a.yaml", "policy: a\nextends: b\ntoken: {}\n")
        try write("b.yaml", "policy: b\nextends: a\ntoken: {}\n")
        #expect(compileErrors("a.yaml").contains { $0.code == .extendsCycle && $0.message.contains("b.yaml") })
        try write("orphan.yaml", "policy: orphan\nextends: nowhere\ntoken: {}\n")
        #expect(compileErrors("orphan.yaml").contains { $0.code == .baseMissing && $0.message.contains("nowhere.yaml") })
        try write("requests.yaml", "policy: requests\nrequest: {method: POST}\n")
        try write("tokens.yaml", "policy: tokens\nextends: requests\ntoken:\n  algorithms: [ES256]\n  \(Self.keys)\n")
        let mismatch = compileErrors("tokens.yaml").first { $0.code == .baseSubjectMismatch }
        #expect(mismatch?.location.line == 2)
        #expect(mismatch?.message.contains("requests.yaml") == true)
    }
}
