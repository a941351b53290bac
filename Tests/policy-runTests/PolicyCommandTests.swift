import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// `check`, `lint` and `explain` run as a user would, on the bundled reference policies.
@Suite("policy-run check, lint and explain")
struct PolicyCommandTests {
    static let check = ["check", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n-0S6_WzA2Mj"]
    static let token = "@Policies/examples/sample-id-token.jwt"

    @Test("check: the README's main command is valid and exits 0")
    func valid() throws {
        let run = try DecodeCommandTests.run(Self.check + ["--now", "2026-11-21T09:30:00Z", Self.token])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("VALID"))
        #expect(run.stdout.contains("output user = \"00u1a2b3c4d5e6f7g8\""))
    }

    @Test("check: an expired token is invalid, exits 1, and the JSON verdict names the rule and its location")
    func expired() throws {
        let run = try DecodeCommandTests.run(Self.check + ["--now", "1795300000", "--format", "json", Self.token])
        #expect(run.status == 1)
        let verdict = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(verdict["valid"] as? Bool == false)
        #expect(verdict["verified"] as? Bool == true)
        let findings = try #require(verdict["findings"] as? [[String: Any]])
        #expect(findings.first?["code"] as? String == "token_expired")
        #expect((findings.first?["at"] as? String)?.hasPrefix("Policies/oidc-id-token.yaml:") == true)
    }

    @Test("check: usage and policy errors exit 2 with a message")
    func errors() throws {
        let missingInput = try DecodeCommandTests.run(["check", "--policy", "Policies/okta-id-token.yaml", "--now", "0", Self.token])
        #expect(missingInput.status == 2)
        #expect(missingInput.stderr.contains("requires the input 'nonce'"))
        let badTime = try DecodeCommandTests.run(Self.check + ["--now", "yesterday", Self.token])
        #expect(badTime.status == 2)
        let noPolicy = try DecodeCommandTests.run(["check", "--policy", "Policies/nowhere.yaml", Self.token])
        #expect(noPolicy.status == 2)
        #expect(noPolicy.stderr == "error: cannot read Policies/nowhere.yaml: No such file or directory\n", "\(noPolicy.stderr)")
    }

    @Test("lint: a misspelled key is reported at file:line:column with a hint, exit 1")
    func lint() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString).yaml")
        try "policy: typo\ntoken:\n  algorithms: [RS256]\n  audiance: x\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try DecodeCommandTests.run(["lint", file.path])
        #expect(run.status == 1)
        #expect(run.stdout.contains("\(file.path):4:3: error[unknown_key]: unknown key 'audiance'"))
        #expect(run.stdout.contains("did you mean 'audience'?"))
        let clean = try DecodeCommandTests.run(["lint", "Policies/okta-id-token.yaml", "Policies/oidc-id-token.yaml"])
        #expect(clean.status == 0, "\(clean.stdout)")
    }

    @Test("explain: lists each rule with its phase and origin, including rules inherited via extends")
    func explain() throws {
        let run = try DecodeCommandTests.run(["explain", "--policy", "Policies/okta-id-token.yaml"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("token.issuer [claims] Policies/okta-id-token.yaml:"))
        #expect(run.stdout.contains("token.audience [claims] Policies/oidc-id-token.yaml:"))
        #expect(run.stdout.contains("token.keys [signature]"))
    }

    @Test("explain: an encrypted format shows the decryption step before the chain")
    func explainDecryption() throws {
        // A folder of its own, so the policy's root holds no key file even when the package
        // itself lies in the temporary directory (as a CI clone may).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nested-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("nested.yaml")
        try """
        policy: nested
        token:
          format: nested
          decryption:
            algorithms: [A256KW]
            encryption: [A256GCM]
            key: {jwk: {kty: oct, kid: wrap-1, k: KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio}}
          algorithms: [RS256]
          keys: {jwks_file: \(DecodeCommandTests.packageRoot.path)/Policies/keys/test-rs256.jwks.json}
        """.write(to: file, atomically: true, encoding: .utf8)
        let refused = try DecodeCommandTests.run(["explain", "--policy", file.path])
        #expect(refused.status == 2 && refused.stderr.contains("file_outside_roots"), "\(refused.stderr)")
        let run = try DecodeCommandTests.run(["explain", "--policy", file.path, "--policy-root", folder.path,
                                              "--policy-root", DecodeCommandTests.packageRoot.path + "/Policies/keys"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("0. token.decryption [format nested] \(file.path):5:5"))
        #expect(run.stdout.contains("alg A256KW; enc A256GCM) with a key from inline jwk, then reads the signed token inside"))
    }

    @Test("check: a plain JWE is reported as verified by its decryption, and a wrong key fails")
    func checkPlainJWE() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = [UInt8](repeating: 0x2A, count: 32)
        let policy = directory.appendingPathComponent("jwe.yaml")
        try """
        policy: jwe
        token:
          format: jwe
          decryption: {algorithms: [dir], encryption: [A256GCM], key: {jwk: {kty: oct, k: \(String(decoding: Base64URL.encodeBytes(secret), as: UTF8.self))}}}
          issuer: https://issuer.example
        """.write(to: policy, atomically: true, encoding: .utf8)
        let claims = Array(#"{"iss":"https://issuer.example","exp":1795255200}"#.utf8)
        let good = try CompactJWE.encrypt(claims, to: JWK(secret: secret), keyAlgorithm: .direct, contentEncryption: .a256GCM)
        let run = try DecodeCommandTests.run(["check", "--policy", policy.path, "--now", "1795253400", good])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("VALID  policy jwe, decryption verified"))
        let wrong = try CompactJWE.encrypt(claims, to: JWK(secret: [UInt8](repeating: 1, count: 32)), keyAlgorithm: .direct, contentEncryption: .a256GCM)
        let failed = try DecodeCommandTests.run(["check", "--policy", policy.path, "--now", "1795253400", wrong])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("decryption_failed  token.decryption"))
        #expect(failed.stdout.contains("at \(policy.path):4:15"))
    }
}
