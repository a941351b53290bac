import Foundation
import Testing

/// `policy-run test` as a CI job runs it: exit codes, the failure report, JUnit, coverage.
@Suite("policy-run test")
struct TestCommandTests {
    /// A copy of okta-id-token and its base, with `cases` as its test file.
    static func scratch(_ cases: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("policy-run-test-\(UUID().uuidString)")
        let policies = DecodeCommandTests.packageRoot.appendingPathComponent("Policies")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("keys"), withIntermediateDirectories: true)
        for file in ["okta-id-token.yaml", "oidc-id-token.yaml", "keys/test-rs256.jwks.json"] {
            try FileManager.default.copyItem(at: policies.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        try """
        policy: okta-id-token
        now: 2026-11-21T09:30:00Z
        inputs: {nonce: n-1}
        token:
          claims: {iss: https://dev-123.okta.com/oauth2/default, sub: u1, aud: 0oa1b2c3d4, iat: now-5m, exp: now+5m,
                   nonce: n-1, auth_time: now-6m, amr: [pwd]}
        cases:
        \(cases)
        """.write(to: directory.appendingPathComponent("okta-id-token.test.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    static let passing = """
      - name: valid
        expect: {valid: true}
    """
    static let failing = """
      - name: expired, but the case expects another code
        token: {claims: {exp: now-10m}}
        expect: {valid: false, codes: [token_not_yet_valid]}
    """

    @Test("every case passing exits 0; the bundled policies' tests all pass")
    func passing() throws {
        let directory = try Self.scratch(Self.passing)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try DecodeCommandTests.run(["test", directory.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))

        let bundled = try DecodeCommandTests.run(["test", "Policies/"])
        #expect(bundled.status == 0, "\(bundled.stdout)")
        #expect(!bundled.stdout.contains("FAIL") && bundled.stdout.contains(" passed, 0 failed"))
    }

    @Test("a failing case exits 1 and shows the difference and the findings")
    func failing() throws {
        let directory = try Self.scratch(Self.passing + "\n" + Self.failing)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try DecodeCommandTests.run(["test", directory.path], environment: ["NO_COLOR": "1"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("  PASS  valid\n"))
        #expect(result.stdout.contains("  FAIL  expired, but the case expects another code  (\(directory.path)/okta-id-token.test.yaml:"))
        #expect(result.stdout.contains("        codes: expected [token_not_yet_valid], got [token_expired]\n"))
        #expect(result.stdout.contains("        got token_expired from token.expires: expired at 2026-11-21T09:20:00Z"))
        #expect(result.stdout.hasSuffix("1 passed, 1 failed\n"))
        #expect(!result.stdout.contains("\u{1B}["))
    }

    @Test("--format junit writes XML to --output; --run selects cases; --coverage lists what no case exercised")
    func reports() throws {
        let directory = try Self.scratch(Self.passing + "\n" + Self.failing)
        defer { try? FileManager.default.removeItem(at: directory) }
        let xml = directory.appendingPathComponent("report.xml")
        let junit = try DecodeCommandTests.run(["test", directory.path, "--format", "junit", "--output", xml.path])
        #expect(junit.status == 1 && junit.stdout.isEmpty)
        let document = try String(contentsOf: xml, encoding: .utf8)
        #expect(document.contains("<testsuite name=\"okta-id-token\""))
        #expect(document.contains("tests=\"2\" failures=\"1\" errors=\"0\""))
        #expect(document.contains("<failure message=\"codes: expected [token_not_yet_valid], got [token_expired]\" type=\"verdict\">"))

        let selected = try DecodeCommandTests.run(["test", directory.path, "--run", "^valid$", "--coverage"])
        #expect(selected.status == 0)
        #expect(selected.stdout.contains("coverage of okta-id-token: rules 19/19, finding codes 0/35"))
        #expect(selected.stdout.contains("    token.nonce (\(directory.path)/oidc-id-token.yaml:18:10): no case produced input_invalid, claim_missing, nonce_mismatch"))
    }

    @Test("a broken test file, a bad pattern or no test file exits 2 with the reason")
    func usageAndLoadErrors() throws {
        let directory = try Self.scratch("  - name: no expectation\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = try DecodeCommandTests.run(["test", directory.path])
        #expect(broken.status == 2)
        #expect(broken.stdout.contains("okta-id-token.test.yaml:8:5: error[missing_key]: a case needs 'expect'"))
        #expect(broken.stdout.hasSuffix("0 passed, 0 failed, 1 file not loaded\n"))

        let pattern = try DecodeCommandTests.run(["test", directory.path, "--run", "(unclosed"])
        #expect(pattern.status == 2 && pattern.stderr.contains("--run: missing )"))

        let empty = try DecodeCommandTests.run(["test", directory.appendingPathComponent("keys").path])
        #expect(empty.status == 2 && empty.stderr.contains("no *.test.yaml file in"))
    }
}
