import Foundation
import Testing

/// A file named on the command line that cannot be read (a policy, a token, a request, a log, a
/// test file) is a usage error: `error: cannot read PATH: REASON` in the system's words, exit 2,
/// and never a diagnostic located at `PATH:1:1` as if the file had a first line to blame.
@Suite("policy-run unreadable files")
struct UnreadableFileTests {
    static let missing = "nowhere/nope.yaml"
    static let expected = "error: cannot read nowhere/nope.yaml: No such file or directory\n"

    @Test("every command that takes a policy path says it cannot read a missing one, exit 2", arguments: [
        ["check", "--policy", missing, "x.y.z"],
        ["lint", missing],
        ["lint", "Policies/okta-id-token.yaml", missing],
        ["explain", "--policy", missing],
        ["keys", "--policy", missing],
        ["keys", "snapshot", "--policy", missing, "--out", "/tmp"],
        ["batch", "--policy", missing, "Policies/examples/sample-id-token.jwt"],
        ["encrypt", "--policy", missing, "Policies/examples/authhub-authenticate.request.json"],
        ["diff", missing, "Policies/okta-id-token.yaml", "Policies/examples/sample-id-token.jwt"],
        ["diff", "Policies/okta-id-token.yaml", missing, "Policies/examples/sample-id-token.jwt"],
        ["fmt", missing],
        ["fmt", "--check", missing],
    ])
    func missingPolicy(_ arguments: [String]) throws {
        let run = try DecodeCommandTests.run(arguments)
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.hasSuffix(Self.expected), "\(run.stderr)")
        #expect(!run.stderr.contains("nope.yaml:1:1") && !run.stderr.contains("does not compile") && !run.stderr.contains("Usage:"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
    }

    @Test("with --format json the error is a JSON object with the code file_unreadable")
    func json() throws {
        let run = try DecodeCommandTests.run(["check", "--policy", Self.missing, "--format", "json", "x.y.z"])
        #expect(run.status == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "file_unreadable")
        #expect(error["message"] as? String == "cannot read nowhere/nope.yaml: No such file or directory")
        #expect(error["diagnostics"] == nil)
    }

    @Test("a directory is named as one")
    func directory() throws {
        let run = try DecodeCommandTests.run(["lint", "Policies"])
        #expect(run.status == 2 && run.stderr == "error: cannot read Policies: Is a directory\n", "\(run.stderr)")
    }

    @Test("a token, request, log or test file that cannot be read says why, exit 2", arguments: [
        (["check", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n", "@nowhere/nope.jwt"], "nowhere/nope.jwt"),
        (["decode", "@nowhere/nope.jwt"], "nowhere/nope.jwt"),
        (["check", "--policy", "Policies/oidc-callback.yaml", "--var", "state=s", "--callback", "@nowhere/callback.txt"], "nowhere/callback.txt"),
        (["check", "--policy", "Policies/authhub-authenticate.yaml", "--var", "server_nonce=n", "--request", "nowhere/request.json"], "nowhere/request.json"),
        (["encrypt", "--policy", "Policies/authhub-authenticate.yaml", "nowhere/request.json"], "nowhere/request.json"),
        (["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n", "nowhere/log.jsonl"], "nowhere/log.jsonl"),
        (["diff", "Policies/okta-id-token.yaml", "Policies/okta-id-token.yaml", "nowhere/log.jsonl"], "nowhere/log.jsonl"),
        (["test", "nowhere/p.test.yaml"], "nowhere/p.test.yaml"),
    ])
    func missingInput(_ arguments: [String], path: String) throws {
        let run = try DecodeCommandTests.run(arguments)
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.hasSuffix("error: cannot read \(path): No such file or directory\n"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
    }

    @Test("batch opens every input before it writes a verdict")
    func batchOpensEveryInputFirst() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).jsonl")
        try "{\"token\": \"x.y.z\"}\n".write(to: log, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: log) }
        let run = try DecodeCommandTests.run(["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n", log.path, "nowhere/log.jsonl"])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderr.hasSuffix("error: cannot read nowhere/log.jsonl: No such file or directory\n"), "\(run.stderr)")
    }
}
