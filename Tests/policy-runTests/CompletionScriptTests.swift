import Foundation
import Testing

/// The shell completions `policy-run --generate-completion-script` writes: every subcommand's
/// options, `serve`'s included, although `policy-run serve` hands its arguments to `policy-serve`
/// without parsing them.
@Suite("policy-run shell completions")
struct CompletionScriptTests {
    static let serveOptions = ["--policies", "--config", "--check", "--listen", "--max-body-bytes", "--drain", "--decision-log",
                               "--decision-log-file", "--log-sample-valid", "--log-claims", "--log-request-fields"]

    /// The body of the shell function that completes `policy-run serve`.
    static func serveFunction(_ script: String) throws -> Substring {
        let start = try #require(script.range(of: "_policy-run_serve() {"), "no serve function")
        let rest = script[start.lowerBound...]
        return rest.range(of: "\n}\n").map { rest[..<$0.lowerBound] } ?? rest
    }

    @Test("bash and zsh complete serve's options", arguments: ["bash", "zsh"])
    func bashAndZsh(_ shell: String) throws {
        let run = try DecodeCommandTests.run(["--generate-completion-script", shell])
        #expect(run.status == 0, "\(run.stderr)")
        let function = try Self.serveFunction(run.stdout)
        for option in Self.serveOptions {
            #expect(function.contains(option), "\(shell): \(option) missing from \(function)")
        }
    }

    @Test("fish completes serve's options")
    func fish() throws {
        let run = try DecodeCommandTests.run(["--generate-completion-script", "fish"])
        #expect(run.status == 0, "\(run.stderr)")
        let serve = run.stdout.split(separator: "\n").filter { $0.contains("\"policy-run serve\"") }.joined(separator: "\n")
        for option in Self.serveOptions {
            #expect(serve.contains("-l '\(option.dropFirst(2))'"), "\(option) missing from \(serve)")
        }
    }

    @Test("policy-run help serve lists policy-serve's options")
    func help() throws {
        let run = try DecodeCommandTests.run(["help", "serve"])
        for option in Self.serveOptions {
            #expect(run.stdout.contains(option), "\(option) missing from \(run.stdout)")
        }
    }
}
