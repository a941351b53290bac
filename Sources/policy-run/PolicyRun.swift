import ArgumentParser
import Foundation

/// The `policy-run` command: evaluate, lint and inspect token-validation policies.
@main
struct PolicyRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-run",
        abstract: "Evaluate token-validation policies, and inspect tokens.",
        subcommands: [CheckCommand.self, LintCommand.self, ExplainCommand.self, DecodeCommand.self]
    )

    /// Runs the command; usage errors exit 2 (as every verb documents), not ArgumentParser's 64.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
