import Foundation
import Testing

/// Lint warnings are `lint`'s to print: `check`, `batch`, `diff` and the other commands that
/// compile a policy to use it print one note line with the count instead of every warning.
@Suite("policy-run lint warning notes")
struct LintWarningNoteTests {
    /// A policy with lint warnings (no audience), in a folder of its own with its key set.
    static func scratch() throws -> (folder: URL, policy: String, warnings: Int) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-note-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/keys/test-rs256.jwks.json"),
                                         to: folder.appendingPathComponent("keys.json"))
        let policy = folder.appendingPathComponent("warned.yaml").path
        try "policy: warned\ntoken:\n  algorithms: [RS256]\n  keys: {jwks_file: keys.json}\n  issuer: http://idp.example\n"
            .write(toFile: policy, atomically: true, encoding: .utf8)
        try "{\"token\": \"x.y.z\", \"ts\": 1795253400}\n".write(to: folder.appendingPathComponent("log.jsonl"), atomically: true, encoding: .utf8)
        let lint = try DecodeCommandTests.run(["lint", "--format", "json", policy])
        let diagnostics = try #require(try JSONSerialization.jsonObject(with: Data(lint.stdout.utf8)) as? [[String: Any]])
        return (folder, policy, diagnostics.count { $0["severity"] as? String == "warning" })
    }

    @Test("check, batch, diff, explain and keys print one note line, never the warnings themselves")
    func oneLine() throws {
        let (folder, policy, warnings) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(warnings >= 2)
        let note = "note: \(warnings) lint warnings in \(policy); policy-run lint \(policy) shows them\n"
        let log = folder.appendingPathComponent("log.jsonl").path
        let runs: [(arguments: [String], notes: Int)] = [
            (["check", "--policy", policy, "x.y.z"], 1),
            (["batch", "--policy", policy, "--summary-json", "/dev/null", log], 1),
            (["diff", policy, policy, log], 2),
            (["explain", "--policy", policy], 1),
            (["keys", "--policy", policy], 1),
        ]
        for (arguments, notes) in runs {
            let run = try DecodeCommandTests.run(arguments)
            #expect(run.status != 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.components(separatedBy: note).count - 1 == notes, "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("warning[") && !run.stderr.contains("audience_missing"), "\(arguments): \(run.stderr)")
        }
        let lint = try DecodeCommandTests.run(["lint", policy])
        #expect(lint.stdout.contains("warning[audience_missing]") && !lint.stderr.contains("note:"), "\(lint.stdout)")
    }

    @Test("a policy on standard input gets the note too, and a clean policy none")
    func standardInputAndClean() throws {
        let (folder, policy, warnings) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOfFile: policy, encoding: .utf8)
        let piped = try DecodeCommandTests.run(["explain", "--policy", "-"], stdin: text, in: folder)
        #expect(piped.stderr == "note: \(warnings) lint warnings in the policy on standard input; policy-run lint shows them for a file\n", "\(piped.stderr)")
        let clean = try DecodeCommandTests.run(["explain", "--policy", "Policies/okta-id-token.yaml"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
    }
}
