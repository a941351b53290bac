import Foundation
import KeyServer
import Testing

/// `policy-run keys` and `check` with a policy whose keys come from a server on 127.0.0.1.
@Suite("policy-run keys")
struct KeysCommandTests {
    /// Runs the binary on its own thread: the server answering it lives in this process and must
    /// keep its cooperative threads.
    static func run(_ arguments: [String]) async throws -> DecodeCommandTests.Run {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try DecodeCommandTests.run(arguments) }) }.start()
        }
    }

    /// A policy for the bundled sample ID token whose keys come from `url`.
    static func remotePolicy(_ url: URL) throws -> String {
        let text = """
        policy: remote-okta
        token:
          algorithms: [RS256]
          keys: {jwks_uri: "\(url.absoluteString)", allow_http: true, max_wait: 30s, require_kid: true}
          issuer: https://dev-123.okta.com/oauth2/default
          audience: 0oa1b2c3d4
        """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID().uuidString).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    static func jwks() throws -> String {
        try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/keys/test-rs256.jwks.json"), encoding: .utf8)
    }

    @Test("lists the fetched keys with kid, type, alg, size, source and fetch time")
    func listsRemoteKeys() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", try Self.jwks())
        let policy = try Self.remotePolicy(server.url("/jwks"))
        defer { try? FileManager.default.removeItem(atPath: policy) }
        let result = try await Self.run(["keys", "--policy", policy])
        print("policy-run keys --policy \(policy)\n\(result.stdout)")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["KID", "KTY", "ALG", "SIZE", "USE", "SOURCE", "FETCHED"])
        let row = try #require(lines.dropFirst().first).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(Array(row.prefix(6)) == ["test-rs256", "RSA", "RS256", "2048", "bits", "verify"])
        #expect(row[6...7] == ["jwks_uri", server.url("/jwks").absoluteString])
        #expect(row.last?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression) != nil)
        #expect(await server.requests("/jwks") == 1)
        let json = try await Self.run(["keys", "--policy", policy, "--format", "json"])
        #expect(json.stdout.contains(#""source": "jwks_uri \#(server.url("/jwks").absoluteString)""#))
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((listed["errors"] as? [Any])?.isEmpty == true)
        let key = try #require((listed["keys"] as? [[String: Any]])?.first)
        #expect(key["bits"] as? Int == 2048 && key["alg"] as? [String] == ["RS256"] && key["crv"] is NSNull)
        #expect((key["fetched_at"] as? String)?.hasSuffix("Z") == true)
        let local = try await Self.run(["keys", "--policy", "Policies/id-token-with-code.yaml", "--format", "json"])
        let localKey = try #require(((try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])?["keys"] as? [[String: Any]])?.first)
        #expect(localKey["fetched_at"] is NSNull && localKey["bits"] is NSNull && localKey["crv"] as? String == "P-256")
        await server.stop()
    }

    @Test("check fetches the keys; a source that is down makes keys exit 1 and check fail with key_unavailable")
    func serverDown() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", try Self.jwks())
        let policy = try Self.remotePolicy(server.url("/jwks"))
        defer { try? FileManager.default.removeItem(atPath: policy) }
        let arguments = ["check", "--policy", policy, "--now", "2026-11-21T09:30:00Z", "--format", "json", "@Policies/examples/sample-id-token.jwt"]
        let valid = try await Self.run(arguments)
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains(#""key_freshness": "fresh""#))
        await server.stop()
        let keys = try await Self.run(["keys", "--policy", policy])
        #expect(keys.status == 1)
        #expect(keys.stderr.contains("error: jwks_uri \(server.url("/jwks").absoluteString): transport"))
        // With --format json the reason is in the JSON too, as {source, code, message}; the exit status stays 1.
        let json = try await Self.run(["keys", "--policy", policy, "--format", "json"])
        #expect(json.status == 1)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect((listed["keys"] as? [Any])?.isEmpty == true)
        let errors = try #require(listed["errors"] as? [[String: String]], "\(json.stdout)")
        #expect(errors.count == 1 && errors.first?["source"] == "jwks_uri \(server.url("/jwks").absoluteString)" && errors.first?["code"] == "transport")
        #expect(errors.first?["message"]?.isEmpty == false)
        #expect(!json.stderr.contains("error: jwks_uri"), "\(json.stderr)")
        let invalid = try await Self.run(arguments)
        #expect(invalid.status == 1)
        #expect(invalid.stdout.contains(#""code": "key_unavailable""#))
        #expect(invalid.stdout.contains(#""key_freshness": "unavailable""#))
    }

    @Test("lists local keys and x5c anchors without fetching")
    func localKeys() async throws {
        let local = try await Self.run(["keys", "--policy", "Policies/rfc9068-access-token.yaml"])
        #expect(local.status == 0)
        let row = local.stdout.split(separator: "\n").dropFirst().first?.split(separator: " ", omittingEmptySubsequences: true)
        #expect(row == ["-", "RSA", "RS256,RS384,RS512,PS256,PS384,PS512", "2048", "bits", "verify", "pem_file", "Policies/keys/test-rs256.pub.pem", "-"])
        let anchors = try await Self.run(["keys", "--policy", "Policies/gematik-discovery-document.yaml"])
        #expect(anchors.status == 0)
        #expect(anchors.stdout == "x5c trust Policies/keys/test-idp-ca.pem: keys from a token's x5c chain issued under /O=policy-engine test/CN=test IDP CA\n")
    }
}
