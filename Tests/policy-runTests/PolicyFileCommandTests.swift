import Foundation
import Testing

/// `--policy` and `--policy-root` as a user meets them: standard input, odd paths, and hostile
/// policy files that try to make the command print what they were not meant to.
@Suite("policy-run policy files")
struct PolicyFileCommandTests {
    static let marker = "MARKER-d41d8cd98f00b204"

    @Test("lint never prints the environment or another file through extends, bearer or key files")
    func hostilePolicies() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let policies = [
            "extends: /proc/self/environ\ntoken: {}\n",
            "request:\n  bearer: {policy: /etc/passwd}\n",
            "token: {algorithms: [ES256], keys: {jwks_file: /proc/self/environ}}\n",
            "token: {algorithms: [ES256], keys: {jwks_file: \"/none/${env:HOSTILE_MARKER}\"}}\n",
            "token: {algorithms: [ES256], keys: {jwks_uri: \"https://idp.example/?k=${env:HOSTILE_MARKER}\"}}\n",
        ]
        for (index, body) in policies.enumerated() {
            let file = folder.appendingPathComponent("p\(index).yaml")
            try ("policy: p\n" + body).write(to: file, atomically: true, encoding: .utf8)
            for format in ["text", "json"] {
                let run = try DecodeCommandTests.run(["lint", "--format", format, file.path], environment: ["HOSTILE_MARKER": Self.marker])
                #expect(run.status == 1, "\(body): \(run.stdout)")
                #expect(!(run.stdout + run.stderr).contains(Self.marker) && !(run.stdout + run.stderr).contains("root:x:0"), "\(body): \(run.stdout)")
                #expect(run.stdout.contains("file_outside_roots") || run.stdout.contains("invalid_value"), "\(body): \(run.stdout)")
            }
        }
    }

    @Test("--policy - reads the policy from standard input, its bases and key files anchored in the working directory")
    func standardInput() throws {
        let policy = try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/okta-id-token.yaml"), encoding: .utf8)
        let token = "@" + DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt").path
        let arguments = ["check", "--policy", "-", "--var", "nonce=n-0S6_WzA2Mj", "--now", "2026-11-21T09:30:00Z", token]
        let unrooted = try DecodeCommandTests.run(arguments, stdin: policy)
        #expect(unrooted.status == 2 && unrooted.stderr.contains("<stdin>:") && unrooted.stderr.contains("base_missing"), "\(unrooted.stderr)")
        let run = try DecodeCommandTests.run(arguments, stdin: policy, in: DecodeCommandTests.packageRoot.appendingPathComponent("Policies"))
        #expect(run.status == 0 && run.stdout.hasPrefix("VALID  policy okta-id-token"), "\(run.stdout) \(run.stderr)")
        let rooted = try DecodeCommandTests.run(["explain", "--policy", "-"], stdin: policy, in: DecodeCommandTests.packageRoot.appendingPathComponent("Policies"))
        #expect(rooted.status == 0 && rooted.stdout.contains("policy okta-id-token"), "\(rooted.stderr)")
        let garbage = try DecodeCommandTests.run(["explain", "--policy", "-"], stdin: "policy: [")
        #expect(garbage.status == 2 && garbage.stderr.contains("<stdin>:"), "\(garbage.stderr)")
    }

    @Test("one-character paths and directories as --policy are clear errors with exit 2, never a crash")
    func oddPaths() throws {
        for path in [".", "x", "a/", "/", "Policies"] {
            for command in [["explain", "--policy", path], ["check", "--policy", path, "x.y.z"]] {
                let run = try DecodeCommandTests.run(command)
                #expect(run.status == 2, "\(command): \(run.status) \(run.stderr)")
                #expect(run.stderr.hasPrefix("error: cannot read \(path): "), "\(command): \(run.stderr)")
            }
        }
        let lint = try DecodeCommandTests.run(["lint", "Policies/okta-id-token.yaml", "x", "-", "a/"])
        #expect(lint.status == 2 && lint.stdout.isEmpty && lint.stderr == "error: cannot read x: No such file or directory\n", "\(lint.stdout) \(lint.stderr)")
    }
}
