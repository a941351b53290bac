import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// `policy-run diff`: a change to okta-id-token judged over a generated log.
@Suite("policy-run diff")
struct DiffCommandTests {
    static let issuer = "https://dev-123.okta.com/oauth2/default"
    static let now: Int64 = 1_795_253_400  // 2026-11-21T09:30:00Z

    /// The bundled policy and its base, a changed copy (leeway 30 s, a second issuer), and a log.
    static func scratch(records: [(ts: Int64, claims: [String: JSONValue])]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("policy-run-diff-\(UUID().uuidString)")
        let policies = DecodeCommandTests.packageRoot.appendingPathComponent("Policies")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("keys"), withIntermediateDirectories: true)
        for file in ["okta-id-token.yaml", "oidc-id-token.yaml", "keys/test-rs256.jwks.json"] {
            try FileManager.default.copyItem(at: policies.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        let changed = try String(contentsOf: policies.appendingPathComponent("okta-id-token.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "leeway: 300s", with: "leeway: 30s")
            .replacingOccurrences(of: "issuer: \(issuer)", with: "issuer: [\(issuer), https://dev-123.okta.com/oauth2/aus9]")
        #expect(changed.contains("leeway: 30s") && changed.contains("aus9"))
        try changed.write(to: directory.appendingPathComponent("okta-id-token-next.yaml"), atomically: true, encoding: .utf8)
        let key = try JWK(pem: String(contentsOf: policies.appendingPathComponent("keys/test-rs256.key.pem"), encoding: .utf8))
        var log = ""
        for record in records {
            var claims = JSONObject(["iss": .string(issuer), "sub": .string("u1"), "aud": .string("0oa1b2c3d4"), "nonce": .string("n-1"),
                                     "iat": .number(.integer(record.ts - 600)), "exp": .number(.integer(record.ts + 600)),
                                     "auth_time": .number(.integer(record.ts - 700)), "amr": .array([.string("pwd")])])
            for name in record.claims.keys.sorted() { claims.set(name, record.claims[name]!) }
            let token = try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(),
                                            header: JSONObject(["typ": .string("JWT"), "kid": .string("test-rs256")]), algorithm: .rs256, key: key)
            log += "{\"token\": \"\(token)\", \"ts\": \(record.ts)}\n"
        }
        try log.write(to: directory.appendingPathComponent("log.jsonl"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("--report writes the flips over record time and by reason, with the rules responsible, escaped")
    func htmlReport() throws {
        let directory = try Self.scratch(records: [
            (Self.now, [:]),
            (Self.now, ["exp": .number(.integer(Self.now - 120))]),
            (Self.now + 3600, ["exp": .number(.integer(Self.now + 3600 - 60))]),
            (Self.now, ["iss": .string("https://dev-123.okta.com/oauth2/aus9")]),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = directory.appendingPathComponent("diff.html")
        let run = try DecodeCommandTests.run(["diff", directory.appendingPathComponent("okta-id-token.yaml").path,
                                              directory.appendingPathComponent("okta-id-token-next.yaml").path,
                                              directory.appendingPathComponent("log.jsonl").path, "--var", "nonce=n-1", "--report", report.path])
        #expect(run.status == 1, "\(run.stderr)")
        let page = try String(contentsOf: report, encoding: .utf8)
        #expect(page.contains("<td>Flipped</td><td>3 (75.0%)</td>"))
        #expect(page.contains("<code>valid → invalid: token_expired</code>") && page.contains("<td class=\"n\">2</td><td>2, 3</td>"))
        #expect(page.contains("<code>invalid → valid: issuer_mismatch</code>"))
        #expect(page.contains("<div class=\"example\">token.expires at "))
        // An hour in 30-second columns: the two flips at 09:30, and the one an hour later.
        #expect(page.contains("<title>2026-11-21 09:30:00 – 09:30:30 UTC: 2 flips\nvalid → invalid: token_expired 1\ninvalid → valid: issuer_mismatch 1</title>"))
        #expect(page.contains("<title>2026-11-21 10:30:00 – 10:30:30 UTC: 1 flip\nvalid → invalid: token_expired 1</title>"))
        #expect(page.components(separatedBy: "<rect class=\"column\"").count == 3)
        let refused = try DecodeCommandTests.run(["diff", "Policies/okta-id-token.yaml", "Policies/okta-id-token.yaml",
                                                  directory.appendingPathComponent("log.jsonl").path, "--report", directory.path])
        #expect(refused.status == 2 && refused.stderr.contains("--report: cannot write to"), "\(refused.stderr)")
    }

    @Test("flips are grouped by direction and codes, with examples and the rules responsible; exit 1")
    func flips() throws {
        let directory = try Self.scratch(records: [
            (Self.now, [:]),
            (Self.now, ["exp": .number(.integer(Self.now - 120))]),
            (Self.now + 60, ["exp": .number(.integer(Self.now))]),
            (Self.now, ["iss": .string("https://dev-123.okta.com/oauth2/aus9")]),
            (Self.now, ["iss": .string("https://evil.example")]),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["diff", directory.appendingPathComponent("okta-id-token.yaml").path, directory.appendingPathComponent("okta-id-token-next.yaml").path,
                         directory.appendingPathComponent("log.jsonl").path, "--var", "nonce=n-1"]
        let text = try DecodeCommandTests.run(arguments)
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains(": 5 records, 3 flips\n"))
        #expect(text.stdout.contains("  valid → invalid: 2\n    2  token_expired   e.g. lines 2, 3\n        refused by token.expires at "))
        #expect(text.stdout.contains("  invalid → valid: 1\n    1  issuer_mismatch   e.g. line 4\n        was refused by token.issuer at "))
        #expect(text.stdout.contains("  unchanged: 1 valid, 1 invalid (0 of them for other reasons now)"))

        let json = try DecodeCommandTests.run(arguments + ["--format", "json"])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["records"] as? Int == 5 && report["flipped"] as? Int == 3)
        let flips = try #require(report["flips"] as? [[String: Any]])
        #expect(flips.map { "\($0["from"]!)→\($0["to"]!) \($0["codes"]!) \($0["examples"]!)" }.count == 2)
        #expect(flips.first?["codes"] as? [String] == ["token_expired"] && flips.first?["examples"] as? [Int] == [2, 3])
    }

    @Test("a log nothing flips in exits 0; a missing log or a request policy exits 2")
    func noFlipsAndErrors() throws {
        let directory = try Self.scratch(records: [(Self.now, [:]), (Self.now, ["iss": .string("https://evil.example")])])
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = directory.appendingPathComponent("okta-id-token.yaml").path
        let same = try DecodeCommandTests.run(["diff", old, old, directory.appendingPathComponent("log.jsonl").path, "--var", "nonce=n-1"])
        #expect(same.status == 0)
        #expect(same.stdout.contains(": 2 records, 0 flips\n"))

        let missing = try DecodeCommandTests.run(["diff", old, old, directory.appendingPathComponent("nowhere.jsonl").path, "--var", "nonce=n-1"])
        #expect(missing.status == 2 && missing.stderr.hasSuffix("nowhere.jsonl: No such file or directory\n"), "\(missing.stderr)")

        let request = try DecodeCommandTests.run(["diff", "Policies/oidc-callback.yaml", "Policies/oidc-callback.yaml", directory.appendingPathComponent("log.jsonl").path])
        #expect(request.status == 2 && request.stderr.contains("diff judges token logs"))
    }
}
