public import ArgumentParser

/// The options of `policy-run play`, declared once: `policy-serve play` parses them, and
/// `policy-run play` declares them too (it hands its arguments over unparsed) for its help and
/// shell completions.
public struct PlayOptions: ParsableArguments {
    /// Options as ArgumentParser reads them.
    public init() {}

    /// The directory of policies the page edits.
    @Argument(help: ArgumentHelp("The directory of policies to edit.", valueName: "DIR"), completion: .directory)
    public var directory: String = "."

    /// The address to listen on, `HOST:PORT`.
    @Option(help: ArgumentHelp("The address to listen on, HOST:PORT; port 0 picks a free one.", valueName: "HOST:PORT"))
    public var listen = "127.0.0.1:8182"

    /// Whether an address other than loopback is allowed.
    @Flag(help: "Allow --listen on an address other than loopback: anyone who reaches it can compile policies that read the directory's key files, and save files there.")
    public var allowRemote = false
}
