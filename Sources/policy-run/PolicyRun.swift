import ArgumentParser
import Foundation

/// The `policy-run` command: evaluate, lint and inspect token-validation policies.
@main
struct PolicyRun: AsyncParsableCommand {
    /// This build's version, as `--version` prints it.
    static let version = "0.15.0"

    static let configuration = CommandConfiguration(
        commandName: "policy-run",
        abstract: "Evaluate token-validation policies, and inspect tokens.",
        discussion: "Exit status: 0 success, 1 a subject or policy failed its check, 2 usage error or input that cannot be used.",
        version: version,
        subcommands: [CheckCommand.self, LintCommand.self, TestCommand.self, DiffCommand.self, FormatCommand.self, SchemaCommand.self, ServeCommand.self,
                      ExplainCommand.self, KeysCommand.self, DecodeCommand.self, PKCECommand.self, EncryptCommand.self, BatchCommand.self]
    )

    /// Runs the command. Errors print in one style, `error: ...`, with the usage of the
    /// subcommand that failed; usage errors exit 2 (as every verb documents), not
    /// ArgumentParser's 64.
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            fail(error, in: Self.self)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error, in: type(of: command))
        }
    }

    /// Ends the process for `error`, raised by `command`'s parsing or run.
    static func fail(_ error: any Error, in command: any ParsableCommand.Type) -> Never {
        let code = command.exitCode(for: error)
        // --help and --version arrive as errors: they print to standard output and succeed.
        if code == .success { command.exit(withError: error) }
        var message = command.fullMessage(for: error)
        if !message.isEmpty, ErrorReport.wantsJSON() {
            let text = command.message(for: error)
            ErrorReport.print(code: code == .validationFailure ? "usage" : "error", message: text.hasPrefix("Error: ") ? String(text.dropFirst(7)) : text)
        } else if !message.isEmpty {
            if message.hasPrefix("Error: ") { message = "error: " + message.dropFirst("Error: ".count) }
            // A subcommand's own message names it alone: name it as it is typed.
            if command != Self.self, let name = command.configuration.commandName {
                message = message.replacingOccurrences(of: "Usage: \(name) ", with: "Usage: policy-run \(name) ")
                    .replacingOccurrences(of: "'\(name) --help'", with: "'policy-run \(name) --help'")
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
        Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
    }
}
