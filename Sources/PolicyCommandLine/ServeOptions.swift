public import ArgumentParser

/// The options of `policy-serve`, declared once: `policy-serve` parses them, and `policy-run
/// serve` declares them too (it hands its arguments to `policy-serve` unparsed), so that its help
/// and its shell completions offer them.
public struct ServeOptions: ParsableArguments {
    /// Options as ArgumentParser reads them.
    public init() {}

    /// The policy directory, `--policies DIR`.
    @Option(help: ArgumentHelp("The directory of policies to serve (or give --config).", valueName: "DIR"), completion: .directory)
    public var policies: String?

    /// The serve configuration file, `--config FILE`.
    @Option(help: ArgumentHelp("A serve configuration file (docs/serve.md).", valueName: "FILE"), completion: .file(extensions: ["yaml", "yml"]))
    public var config: String?

    /// Whether to check the configuration and policies, then exit.
    @Flag(help: "Check the configuration and every policy, then exit without serving.")
    public var check = false

    /// The address to listen on, `HOST:PORT`.
    @Option(help: ArgumentHelp("The address to listen on, HOST:PORT (default 127.0.0.1:8181, or the configuration's).", valueName: "HOST:PORT"))
    public var listen: String?

    /// The largest call body accepted, in bytes.
    @Option(help: ArgumentHelp("The largest call body accepted (default 1 MiB).", valueName: "BYTES"))
    public var maxBodyBytes: Int?

    /// How long calls are still served after SIGTERM, as written.
    @Option(help: ArgumentHelp("How long calls are still served after SIGTERM, with /readyz answering 503 (default 5s, or the configuration's; 0 stops at once).",
                               valueName: "DURATION"))
    public var drain: String?

    /// The signature cache's memory, as written (`64MiB`).
    @Option(help: ArgumentHelp("The memory for remembered signature checks and decoded tokens (default 64MiB, or the configuration's; KiB, MiB or GiB).",
                               valueName: "SIZE"))
    public var signatureCache: String?

    /// The decision log level: `none`, `timing` or `data`.
    @Option(help: ArgumentHelp("Decision logs: none (default), timing (policy, result, codes, duration, key) or data (also outputs and refusing rules).",
                               valueName: "LEVEL"),
            completion: .list(["none", "timing", "data"]))
    public var decisionLog: String?

    /// Where decision logs are appended.
    @Option(help: ArgumentHelp("Where decision logs go (default: standard output); appended to.", valueName: "FILE"), completion: .file())
    public var decisionLogFile: String?

    /// The share of valid decisions logged, from 0 to 1.
    @Option(help: ArgumentHelp("The share of valid decisions logged, from 0 to 1 (invalid ones always are).", valueName: "RATE"))
    public var logSampleValid: Double?

    /// The claims a `data` decision log line adds, comma-separated.
    @Option(help: ArgumentHelp("At --decision-log data, the claims each line adds, comma-separated (e.g. sub,client_id).", valueName: "NAMES"))
    public var logClaims: String?

    /// The request fields a `data` decision log line adds, comma-separated.
    @Option(help: ArgumentHelp("At --decision-log data, the request fields each line adds: method, path, url, headers.NAME, comma-separated.",
                               valueName: "FIELDS"))
    public var logRequestFields: String?
}
