import ArgumentParser
import Foundation
import PolicyCommandLine
import PolicyRuntime
import PolicyJOSE
import Rules

/// `policy-run check`: evaluates one token against a policy and prints the verdict.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a token against a policy.",
        discussion: """
        TOKEN is a compact JWS or JWE, '-' to read it from standard input, or @FILE; a policy \
        without a token section takes none (a pkce policy reads only --var inputs). \
        Exit status: 0 valid, 1 invalid, 2 usage or policy error.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var options: PolicyOptions

    @Option(help: "Output format: text (for people) or json (the verdict).")
    var format: Format = .text

    @Flag(help: "Add every rule, in order, with what it compared, to the verdict.")
    var trace = false

    @OptionGroup var colour: ColourOption

    @Option(help: ArgumentHelp("An HTTP request as JSON {method, url, headers, body}, or '-' for standard input (for policies with a request section).",
                               valueName: "FILE"))
    var request: String?

    @Option(help: ArgumentHelp("An authorization response: the URL the browser was redirected to, or @FILE (for policies with a callback section).",
                               valueName: "URL"))
    var callback: String?

    @Argument(help: "The token, '-' for standard input, or @FILE (for policies with a token section).")
    var token: String?

    func run() async throws {
        let policy = try options.compiledPolicy()
        let text = try token.map { try TokenArgument.read($0) }
        var subjects: [any PolicySubject] = []
        if let request { subjects.append(RequestSubject(json: try TokenArgument.bytes(request))) }
        if let callback { subjects.append(CallbackSubject(url: try TokenArgument.read(callback, what: "callback"))) }
        let now = try options.time()
        let verdict: Verdict
        do {
            verdict = try await policy.evaluate(token: text, subjects: subjects, inputs: options.inputs(), now: now, trace: trace,
                                                clockSource: now == nil ? nil : "--now")
        } catch let error as EvaluationError {
            if format == .json {
                ErrorReport.print(error)
            } else {
                FileHandle.standardError.write(Data("error: \(InertText.escaped(error.message))\n".utf8))
            }
            throw ExitCode(2)
        }
        switch format {
        case .json: print(verdict.jsonText(pretty: true))
        case .text:
            // A request is proven by its bearer token when it has one; callbacks and PKCE by nothing.
            let proof = !policy.subjects.contains("token") ? (verdict.verified ? "bearer token" : nil)
                : policy.envelope.format == .jwe ? "decryption" : "signature"
            print(VerdictText(verdict, proof: proof, colour: colour.enabled).rendered)
        }
        if !verdict.valid { throw ExitCode(1) }
    }
}

/// A verdict as a person reads it.
struct VerdictText {
    let verdict: Verdict
    /// What proves the token's origin: its `signature`, or for a plain JWE its `decryption`;
    /// nil for policies that check no token.
    let proof: String?
    let colour: Bool

    init(_ verdict: Verdict, proof: String? = "signature", colour: Bool) {
        self.verdict = verdict
        self.proof = proof
        self.colour = colour
    }

    func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    var rendered: String {
        // Every value that came from the subject (kid, message, trace detail) is escaped before it
        // is placed on a line: a newline or escape sequence in a token must not draw a line of its own.
        let inert: (String) -> String = InertText.escaped
        var lines: [String] = []
        let status = verdict.valid ? paint("VALID", "1;32") : paint("INVALID", "1;31")
        var headline = "\(status)  policy \(inert(verdict.policy))"
        if let proof, let key = verdict.trace?.key {
            headline += ", \(proof) verified with \(key.kid.map { "kid '\(inert($0))'" } ?? "a key") from \(inert(key.source))"
        } else if let proof {
            headline += verdict.verified ? ", \(proof) verified" : ", \(proof) NOT verified"
        }
        if let freshness = verdict.keyFreshness, freshness != .fresh {
            headline += paint(" (keys \(freshness.rawValue): the key source is failing)", "33")
        }
        lines.append(headline)
        for finding in verdict.findings {
            lines.append("  \(paint(finding.code.rawValue, "31"))  \(inert(finding.rule)): \(inert(finding.message))")
            lines.append("      at \(inert(finding.at))")
            for nested in finding.nested {
                lines.append("      \(paint(nested.code.rawValue, "31"))  \(inert(nested.rule)): \(inert(nested.message))")
            }
        }
        if !verdict.skipped.isEmpty {
            lines.append("  skipped (optional input absent): \(inert(verdict.skipped.joined(separator: ", ")))")
        }
        for name in verdict.outputs.keys.sorted() {
            let value = verdict.outputs[name]!
            lines.append("  output \(inert(name)) = \(inert(String(decoding: value.serializedBytes(), as: UTF8.self)))")
        }
        if let trace = verdict.trace {
            lines.append("  trace (clock \(trace.clock.iso8601) from \(inert(trace.clock.source))):")
            for entry in trace.entries {
                lines.append("    \(entry.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(inert(entry.rule))\(entry.detail.map { ": \(inert($0))" } ?? "")")
            }
        }
        return lines.joined(separator: "\n")
    }
}
