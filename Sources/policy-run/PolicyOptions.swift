import ArgumentParser
import Foundation
import Logging
import PolicyCommandLine
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// Which policy to compile, and the directories it may read files from.
struct PolicyFileOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "The policy YAML file, or - to read it from standard input.",
            completion: .file(extensions: ["yaml", "yml"]))
    var policy: String

    @Option(name: .customLong("policy-root"),
            help: ArgumentHelp("A directory the policy may read bases and key files from (repeatable; default: the policy file's directory, or the working directory for -).",
                               valueName: "DIR"))
    var roots: [String] = []

    /// The policy compiled, or exit 2 with every diagnostic on standard error (or, for a file
    /// that cannot be read, `error: cannot read FILE: REASON`). Lint warnings are counted in one
    /// note line: `lint` is the command that shows them.
    func compiledPolicy() throws -> Policy {
        try PolicyFileOptions.compile(file: policy, roots: roots)
    }

    /// The largest policy read from standard input, as for a file.
    static let maxStandardInputBytes = YAMLLoader().maxFileBytes

    static func compile(file: String, roots: [String]) throws -> Policy {
        let fileRoots = roots.isEmpty ? nil : FileRoots(roots)
        let keyCache = JWKSCache(logger: Logger.keyWarningsOnly)
        do {
            let policy: Policy
            if file == "-" {
                let data = (try? FileHandle.standardInput.read(upToCount: maxStandardInputBytes + 1)) ?? Data()
                guard data.count <= maxStandardInputBytes else {
                    throw ValidationError("the policy on standard input is larger than \(maxStandardInputBytes) bytes")
                }
                guard let text = String(validating: data, as: UTF8.self) else {
                    throw ValidationError("the policy on standard input is not UTF-8 text")
                }
                policy = try Policy.load(text: text, file: "<stdin>", keyCache: keyCache, fileRoots: fileRoots ?? FileRoots(["."]))
            } else {
                try InputFile.checkReadable(file)
                policy = try Policy.load(file: file, keyCache: keyCache, fileRoots: fileRoots)
            }
            if let note = LintWarningNote(count: policy.warnings.count, file: file) {
                FileHandle.standardError.write(Data((note.rendered + "\n").utf8))
            }
            return policy
        } catch let error as PolicyDiagnostics {
            if ErrorReport.wantsJSON() {
                ErrorReport.print(code: "policy_invalid", message: "the policy \(file) does not compile", diagnostics: error.sorted)
            } else {
                Diagnostics.print(error.sorted)
            }
            throw ExitCode(2)
        }
    }
}

/// The options every command that evaluates a policy shares.
struct PolicyOptions: ParsableArguments {
    @OptionGroup var file: PolicyFileOptions

    @Option(name: .customLong("var"), help: ArgumentHelp("An input value, NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Option(help: ArgumentHelp("The evaluation time: unix seconds or RFC 3339 (default: now).", valueName: "TIME"))
    var now: String?

    /// The policy compiled, or exit 2 with every diagnostic on standard error.
    func compiledPolicy() throws -> Policy {
        try file.compiledPolicy()
    }

    /// `--var` values as string inputs.
    func inputs() throws -> [String: JSONValue] {
        try Self.inputs(variables)
    }

    /// `NAME=VALUE` arguments as string inputs, each name once.
    static func inputs(_ variables: [String]) throws -> [String: JSONValue] {
        var inputs: [String: JSONValue] = [:]
        for entry in variables {
            guard let equals = entry.firstIndex(of: "="), equals > entry.startIndex else {
                throw ValidationError("--var expects NAME=VALUE, got '\(entry)'")
            }
            let name = String(entry[..<equals])
            guard inputs[name] == nil else { throw ValidationError("--var \(name) is given twice") }
            inputs[name] = .string(String(entry[entry.index(after: equals)...]))
        }
        return inputs
    }

    /// The evaluation time `--now` gives; nil for the wall clock.
    func time() throws -> UnixTime? {
        try now.map { try TimeArgument.time($0, option: "--now") }
    }
}

/// Parses the `--now` forms: unix seconds (integer or decimal) or RFC 3339.
enum TimeArgument {
    /// `text` in seconds, or a usage error naming `option` and the forms it takes.
    static func time(_ text: String, option: String) throws -> UnixTime {
        guard let time = UnixTime(parsing: text) else {
            throw ValidationError("\(option) expects unix seconds or an RFC 3339 time such as 2026-11-21T10:00:00Z, got '\(text)'")
        }
        return time
    }
}
