import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyAuthoring
import Rules
import Testing

/// The runner mints tokens the policy accepts with stand-in keys, and reports each case's
/// difference from what it expects.
@Suite("Policy test runner")
struct PolicyTestRunnerTests {
    static let runner = try! PolicyTestRunner()
    static let repositoryKeys = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("RulesTests/Keys").path
    static let repositoryPolicyKeys = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Policies/keys").path

    static let policy = """
    policy: api-token
    mode: collect_all
    inputs:
      audience: {default: api}
    token:
      algorithms: [ES256]
      keys: {pem_file: keys/test-ecdh-p256.pub.pem}
      issuer: https://issuer.example
      audience: ${audience}
    outputs:
      user: claims.sub
    """

    /// A directory holding `policy` as NAME.yaml, its key, and `tests` as NAME.test.yaml.
    static func run(_ tests: String, policy: String = policy, name: String = "api-token", runner: PolicyTestRunner = runner,
                    extraKeys: [String] = []) async throws -> PolicyTestReport {
        let directory = try TestDirectory()
        try directory.write("\(name).yaml", policy)
        for key in ["test-ecdh-p256.pub.pem", "test-rsa-oaep.key.pem"] {
            try directory.write("keys/\(key)", String(contentsOfFile: repositoryKeys + "/" + key, encoding: .utf8))
        }
        for key in extraKeys {
            try directory.write("keys/\(key)", String(contentsOfFile: repositoryPolicyKeys + "/" + key, encoding: .utf8))
        }
        return await runner.run(file: try directory.write("\(name).test.yaml", tests))
    }

    static let header = """
    policy: api-token
    now: 2026-11-21T09:30:00Z
    token: {claims: {iss: https://issuer.example, aud: api, sub: alice, exp: now+5m}}
    cases:

    """

    @Test("a passing case, a failing case with its difference, and a case that cannot run")
    func outcomes() async throws {
        let report = try await Self.run(Self.header + """
          - name: valid
            expect: {valid: true, codes: [], outputs: {user: alice}}
          - name: wrong expectation
            token: {claims: {iss: https://other.example}}
            expect: {valid: true, outputs: {user: bob}}
          - name: undeclared input
            inputs: {tenant: acme}
            expect: {valid: true}
        """)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.results.map(\.name) == ["valid", "wrong expectation", "undeclared input"])
        #expect(report.results[0].outcome == .passed)
        #expect(report.results[1].outcome == .failed([
            "valid: expected true, got false", "output user: expected \"bob\", got nothing",
        ]))
        guard case let .error(message) = report.results[2].outcome else {
            Issue.record("expected an error, got \(report.results[2].outcome)")
            return
        }
        #expect(message.contains("tenant"))
        #expect(report.passed == 1 && report.failed == 2)
    }

    @Test("stand-in keys: forged signatures, refused algorithms and alg none fail as they would in production")
    func forgeries() async throws {
        let report = try await Self.run(Self.header + """
          - name: forged
            token: {corrupt_signature: true}
            expect: {valid: false, codes: [signature_invalid]}
          - name: RS256
            token: {header: {alg: RS256}}
            expect: {valid: false, codes: [alg_not_allowed]}
          - name: none
            token: {header: {alg: none}}
            expect: {valid: false, codes: [alg_not_allowed]}
        """)
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed], "\(report.results.map(\.outcome))")
    }

    @Test("nested and plain JWE policies get tokens encrypted to a stand-in decryption key")
    func encryptedFormats() async throws {
        for (format, signed) in [("nested", true), ("jwe", false)] {
            let policy = """
            policy: api-token
            token:
              format: \(format)
              decryption: {algorithms: [RSA-OAEP-256], encryption: [A256GCM], key: {pem_file: keys/test-rsa-oaep.key.pem}}
            \(signed ? "  algorithms: [ES256]\n  keys: {pem_file: keys/test-ecdh-p256.pub.pem}\n" : "")  issuer: https://issuer.example
            """
            let report = try await Self.run(Self.header + """
              - name: valid
                expect: {valid: true}
              - name: tampered
                token: {corrupt_signature: true}
                expect: {valid: false, codes: [\(signed ? "signature_invalid" : "decryption_failed")]}
            """, policy: policy)
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(report.results.map(\.outcome) == [.passed, .passed], "\(format): \(report.results.map(\.outcome))")
        }
    }

    @Test("embedded tokens are minted for the policy embedded_tokens names, at nested paths, layered like the token; a claim a case writes replaces one")
    func embeddedTokens() async throws {
        let policy = """
        policy: api-token
        token:
          format: nested
          decryption: {algorithms: [ECDH-ES], encryption: [A256GCM], key: {pem_file: keys/test-bp256r1.key.pem}}
          algorithms: [ES256]
          keys: {pem_file: keys/test-ecdh-p256.pub.pem}
          issuer: https://issuer.example
          embedded_tokens:
            grant.proof: {token: {algorithms: [ES256], keys: {pem_file: keys/test-ecdh-p256.pub.pem}, issuer: https://device.example}}
        """
        let report = try await Self.run("""
        policy: api-token
        now: 2026-11-21T09:30:00Z
        token:
          claims: {iss: https://issuer.example, exp: now+5m}
          embedded:
            grant.proof: {claims: {iss: https://device.example, exp: now+1m}}
        cases:
          - name: valid
            expect: {valid: true, codes: []}
          - name: an embedded claim changed
            token: {embedded: {grant.proof: {claims: {iss: https://other.example}}}}
            expect: {valid: false, codes: [embedded_token_invalid]}
          - name: an embedded forgery
            token: {embedded: {grant.proof: {corrupt_signature: true}}}
            expect: {valid: false, codes: [embedded_token_invalid]}
          - name: the claim written over
            token: {claims: {grant: {proof: 5}}}
            expect: {valid: false, codes: [claim_type]}
          - name: a claim the policy checks no token in
            token: {embedded: {other: {claims: {}}}}
            expect: {valid: true}
        """, policy: policy, extraKeys: ["test-bp256r1.key.pem"])
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.results.prefix(4).map(\.outcome) == [.passed, .passed, .passed, .passed], "\(report.results.map(\.outcome))")
        guard case let .error(message)? = report.results.last?.outcome else {
            Issue.record("expected an error, got \(String(describing: report.results.last?.outcome))")
            return
        }
        #expect(message.contains("checks no token in claim 'other'"))
    }

    @Test("a test file naming another policy, or a policy that does not compile, runs no case")
    func loadProblems() async throws {
        let renamed = try await Self.run(Self.header.replacingOccurrences(of: "policy: api-token", with: "policy: other") + "  - {name: a, expect: {valid: true}}\n",
                                         name: "other")
        #expect(renamed.results.isEmpty)
        #expect(renamed.problems.map(\.message) == ["other.yaml is policy 'api-token', not 'other'"].map { renamed.path.replacingOccurrences(of: "other.test.yaml", with: "") + $0 })

        let broken = try await Self.run(Self.header + "  - {name: a, expect: {valid: true}}\n", policy: Self.policy.replacingOccurrences(of: "ES256", with: "ES999"))
        #expect(broken.results.isEmpty)
        #expect(broken.problems.map(\.code) == [.invalidValue])
        #expect(broken.problems.first?.location.file.hasSuffix("api-token.yaml") == true)
    }

    @Test("a case filter runs only the cases it selects")
    func filter() async throws {
        var runner = try PolicyTestRunner()
        runner.caseFilter = { $0.hasPrefix("expired") }
        let report = try await Self.run(Self.header + """
          - name: valid
            expect: {valid: true}
          - name: expired a minute ago
            token: {claims: {exp: now-2m}}
            expect: {valid: false, codes: [token_expired]}
        """, runner: runner)
        #expect(report.results.map(\.name) == ["expired a minute ago"])
    }

    @Test("coverage names the rules no case ran and the codes no case produced")
    func coverage() async throws {
        let report = try await Self.run(Self.header + """
          - name: valid
            expect: {valid: true}
          - name: another issuer
            token: {claims: {iss: https://other.example}}
            expect: {valid: false, codes: [issuer_mismatch]}
        """)
        let coverage = try #require(report.coverage)
        let issuer = try #require(coverage.entries.first { $0.rule == "token.issuer" })
        #expect(issuer.exercised && issuer.missingCodes == [.claimMissing])
        let audience = try #require(coverage.entries.first { $0.rule == "token.audience" })
        #expect(audience.missingCodes == [.inputInvalid, .claimMissing, .audienceMismatch])
        let expires = try #require(coverage.entries.first { $0.rule == "token.expires" })
        #expect(expires.missingCodes == [.claimMissing, .tokenExpired])
        // The PEM key has no kid, and the stand-in chooses no more by kid than the policy does.
        let keys = try #require(coverage.entries.first { $0.rule == "token.keys" })
        #expect(keys.missingCodes == [.signatureInvalid])
        #expect(!coverage.isComplete)
    }
}
