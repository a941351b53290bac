import ArgumentParser
import Foundation

/// The `policy-run` command: evaluate, lint and inspect token-validation policies.
@main
struct PolicyRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-run",
        abstract: "Evaluate token-validation policies, and inspect tokens.",
        subcommands: [CheckCommand.self, LintCommand.self, ExplainCommand.self, KeysCommand.self, DecodeCommand.self, PKCECommand.self, EncryptCommand.self, BatchCommand.self, TestCommand.self, SchemaCommand.self, DiffCommand.self, FormatCommand.self]
    )

    /// Runs the command; usage errors exit 2 (as every verb documents), not ArgumentParser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
