import ArgumentParser

/// The `policy-run` command: evaluate, lint and inspect token-validation policies.
@main
struct PolicyRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-run",
        abstract: "Evaluate token-validation policies, and inspect tokens.",
        subcommands: [CheckCommand.self, LintCommand.self, ExplainCommand.self, DecodeCommand.self]
    )
}
