public import ArgumentParser

/// The options of `policy-serve`, declared once: `policy-serve` parses them, and `policy-run
/// serve` declares them too (it hands its arguments to `policy-serve` unparsed), so that its help
/// and its shell completions offer them.
public struct ServeOptions: ParsableArguments {
    /// Options as ArgumentParser reads them.
    public init() {}

    @Option(help: ArgumentHelp("The directory of policies to serve (or give --config).", valueName: "DIR"), completion: .directory)
    public var policies: String?

    @Option(help: ArgumentHelp("A serve configuration file (docs/serve.md).", valueName: "FILE"), completion: .file(extensions: ["yaml", "yml"]))
    public var config: String?

    @Flag(help: "Check the configuration and every policy, then exit without serving.")
    public var check = false

    @Option(help: ArgumentHelp("The address to listen on, HOST:PORT (default 127.0.0.1:8181, or the configuration's).", valueName: "HOST:PORT"))
    public var listen: String?

    @Option(help: ArgumentHelp("The largest call body accepted (default 1 MiB).", valueName: "BYTES"))
    public var maxBodyBytes: Int?

    @Option(help: ArgumentHelp("How long calls are still served after SIGTERM, with /readyz answering 503 (default 5s, or the configuration's; 0 stops at once).",
                               valueName: "DURATION"))
    public var drain: String?

    @Option(help: ArgumentHelp("The memory for remembered signature checks and decoded tokens (default 64MiB, or the configuration's; KiB, MiB or GiB).",
                               valueName: "SIZE"))
    public var signatureCache: String?

    @Option(help: ArgumentHelp("Decision logs: none (default), timing (policy, result, codes, duration, key) or data (also outputs and refusing rules).",
                               valueName: "LEVEL"),
            completion: .list(["none", "timing", "data"]))
    public var decisionLog: String?

    @Option(help: ArgumentHelp("Where decision logs go (default: standard output); appended to.", valueName: "FILE"), completion: .file())
    public var decisionLogFile: String?

    @Option(help: ArgumentHelp("The share of valid decisions logged, from 0 to 1 (invalid ones always are).", valueName: "RATE"))
    public var logSampleValid: Double?

    @Option(help: ArgumentHelp("At --decision-log data, the claims each line adds, comma-separated (e.g. sub,client_id).", valueName: "NAMES"))
    public var logClaims: String?

    @Option(help: ArgumentHelp("At --decision-log data, the request fields each line adds: method, path, url, headers.NAME, comma-separated.",
                               valueName: "FIELDS"))
    public var logRequestFields: String?
}
