import ArgumentParser
import PolicyCommandLine

/// The `policy-run` command: evaluate, lint and inspect token-validation policies.
@main
struct PolicyRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-run",
        abstract: "Evaluate token-validation policies, and inspect tokens.",
        discussion: "Exit status: 0 success, 1 a subject or policy failed its check, 2 usage error or input that cannot be used.",
        version: Release.version,
        subcommands: [CheckCommand.self, LintCommand.self, TestCommand.self, DiffCommand.self, FormatCommand.self, SchemaCommand.self, ServeCommand.self, PlayCommand.self,
                      ExplainCommand.self, KeysCommand.self, DecodeCommand.self, PKCECommand.self, EncryptCommand.self, BatchCommand.self]
    )

    /// Runs the command; `serve` becomes `policy-serve` and `play` `policy-serve play`, with the
    /// same arguments, before anything is parsed, so their options, help and errors are that
    /// binary's own.
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == ServeCommand.configuration.commandName {
            ServeCommand.handOff(Array(arguments.dropFirst()))
        }
        if arguments.first == PlayCommand.configuration.commandName {
            ServeCommand.handOff(Array(arguments))
        }
        await CommandMain.run(Self.self)
    }
}
