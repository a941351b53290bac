import ArgumentParser
import PolicyCommandLine

/// `policy-run play`: runs `policy-serve play`, the playground served by the binary that has the
/// HTTP stack, so that `policy-run` itself does not load SwiftNIO and Hummingbird.
///
/// `PolicyRun.main` hands the arguments over before parsing; this command is here for the list
/// of subcommands, `policy-run help play` and the shell completions.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Edit a policy and a token side by side in a local web page: diagnostics as you type, the verdict and its trace, the policy's tests.",
        discussion: """
        Runs 'policy-serve play', installed beside policy-run, with the same arguments \
        (docs/writing-policies.md, "The playground").
        """
    )

    /// Never parsed here: declared so that help and completions list them.
    @OptionGroup var options: PlayOptions
}
