import Foundation
import Testing

/// What users of swift-argument-parser tools, kubectl, jq and OPA expect of a command line.
@Suite("CLI conventions")
struct CLIConventionTests {
    static let check = ["check", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n-0S6_WzA2Mj", "--now", "2026-11-21T09:30:00Z"]
    static let token = "@Policies/examples/sample-id-token.jwt"

    @Test("--version prints the version and exits 0")
    func version() throws {
        let result = try DecodeCommandTests.run(["--version"])
        #expect(result.status == 0 && result.stdout == "0.15.0\n")
    }

    @Test("errors read 'error: ...' and show the usage of the subcommand that failed; usage errors exit 2")
    func errorStyle() throws {
        let badTime = try DecodeCommandTests.run(["check", "--policy", "Policies/okta-id-token.yaml", "--now", "soon", Self.token])
        #expect(badTime.status == 2)
        #expect(badTime.stderr.hasPrefix("error: --now expects unix seconds or an RFC 3339 time"))
        #expect(badTime.stderr.contains("Usage: policy-run check --policy <policy>"))
        #expect(badTime.stderr.contains("See 'policy-run check --help'"))
        let unknownOption = try DecodeCommandTests.run(["lint", "--strict", "Policies/okta-id-token.yaml"])
        #expect(unknownOption.status == 2 && unknownOption.stderr.hasPrefix("error: Unknown option '--strict'"))
        #expect(unknownOption.stderr.contains("Usage: policy-run lint"))
    }

    @Test("a token pasted with its 'Bearer ' prefix is refused with a hint, not judged")
    func bearerPrefix() throws {
        let token = try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
        let result = try DecodeCommandTests.run(Self.check + ["Bearer " + token])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: the token starts with 'Bearer '"))
    }

    /// Runs policy-run on a pseudo-terminal (util-linux `script`), where `--color auto` decides.
    static func onTerminal(_ arguments: [String], environment: [String: String]) throws -> String {
        let binary = try DecodeCommandTests.binary().path
        let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        var merged = ProcessInfo.processInfo.environment.filter { $0.key != "NO_COLOR" }
        merged["TERM"] = "xterm"
        process.environment = merged.merging(environment) { $1 }
        process.currentDirectoryURL = DecodeCommandTests.packageRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    @Test("colour on a terminal, none with NO_COLOR or TERM=dumb; --color always and never win")
    func colour() throws {
        let arguments = Self.check + [Self.token]
        #expect(try Self.onTerminal(arguments, environment: [:]).contains("\u{1B}[1;32mVALID"))
        #expect(!(try Self.onTerminal(arguments, environment: ["NO_COLOR": "1"]).contains("\u{1B}[")))
        #expect(!(try Self.onTerminal(arguments, environment: ["TERM": "dumb"]).contains("\u{1B}[")))
        #expect(!(try Self.onTerminal(arguments + ["--color", "never"], environment: [:]).contains("\u{1B}[")))
        let piped = try DecodeCommandTests.run(arguments + ["--color", "always"])
        #expect(piped.stdout.hasPrefix("\u{1B}[1;32mVALID"))
    }

    @Test("with --format json, errors come as a JSON object on standard output: usage, policy and evaluation errors")
    func jsonErrors() throws {
        func error(_ run: DecodeCommandTests.Run) throws -> [String: Any] {
            #expect(run.status == 2 && run.stderr.isEmpty, "\(run.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(object["error"] as? [String: Any])
        }
        let usage = try error(try DecodeCommandTests.run(Self.check.dropLast(2) + ["--now", "soon", "--format", "json", Self.token]))
        #expect(usage["code"] as? String == "usage" && (usage["message"] as? String)?.hasPrefix("--now expects") == true)
        let missing = try error(try DecodeCommandTests.run(["check", "--policy", "Policies/okta-id-token.yaml", "--format=json", Self.token]))
        #expect(missing["code"] as? String == "missing_input")
        let broken = try error(try DecodeCommandTests.run(["explain", "--policy", "Tests/SchemaFixtures/invalid/unknown-mode.yaml", "--format", "json"]))
        #expect(broken["code"] as? String == "policy_invalid")
        let diagnostics = try #require(broken["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.contains { $0["code"] as? String == "invalid_value" && ($0["at"] as? String)?.hasSuffix("unknown-mode.yaml:3:7") == true })
    }

    @Test("explain --format json lists the chain, inputs and outputs with their locations")
    func explainJSON() throws {
        let result = try DecodeCommandTests.run(["explain", "--policy", "Policies/okta-id-token.yaml", "--format", "json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let chain = try #require(object["chain"] as? [[String: Any]])
        // The signature comes before every time and claim rule.
        let rules = chain.compactMap { $0["rule"] as? String }
        let keys = try #require(rules.firstIndex(of: "token.keys"))
        #expect(chain.count == 19 && keys < rules.firstIndex(of: "token.expires")! && keys < rules.firstIndex(of: "token.nonce")!)
        #expect(chain.first { $0["rule"] as? String == "token.expires" }?["at"] as? String == "Policies/oidc-id-token.yaml:20:12")
        let outputs = try #require(object["outputs"] as? [[String: Any]])
        #expect(outputs.first?["from"] as? String == "claims.sub")
        #expect(object["files"] as? [String] == ["Policies/okta-id-token.yaml", "Policies/oidc-id-token.yaml"])
    }

    @Test("--summary-json - writes the summary to standard output, after the verdicts")
    func summaryToStandardOutput() throws {
        let token = try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
        let record = "{\"token\": \"\(token.trimmingCharacters(in: .whitespacesAndNewlines))\", \"ts\": 1795253400}\n"
        let result = try DecodeCommandTests.run(["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n-0S6_WzA2Mj", "--summary-json", "-"],
                                                stdin: record)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", maxSplits: 1)
        #expect(lines.first?.contains("\"valid\":true") == true)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(String(lines.last ?? "").utf8)) as? [String: Any])
        #expect(summary["records"] as? Int == 1)
    }
}
