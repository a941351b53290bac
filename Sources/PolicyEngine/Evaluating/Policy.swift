public import Foundation

/// Whether evaluation stops at the first failed rule or reports every failure.
public enum EvaluationMode: String, Sendable, Codable, CaseIterable {
    case failFast = "fail_fast"
    case collectAll = "collect_all"
}

/// A compiled policy: immutable, `Sendable`, compiled once and evaluated many times from any thread.
public struct Policy: Sendable {
    public let name: String
    public let description: String?
    public let mode: EvaluationMode
    public let inputs: [InputDeclaration]
    public let outputs: [OutputDeclaration]
    /// The token's packaging and size bounds, applied before any rule runs.
    public let envelope: TokenEnvelope
    /// The chain every subject goes through.
    public let root: ChainNode
    /// The files the policy was compiled from, the policy's own first, then its bases.
    public let files: [String]
    /// Lint warnings found while compiling (the policy compiled despite them).
    public let warnings: [Diagnostic]

    func withWarnings(_ warnings: [Diagnostic]) -> Policy {
        Policy(name: name, description: description, mode: mode, inputs: inputs, outputs: outputs, envelope: envelope,
               root: root, files: files, warnings: warnings)
    }

    /// Evaluates a compact token (a JWS, or a JWE for `format: jwe | nested`) at `now`
    /// (seconds since the Unix epoch).
    ///
    /// Throws only for a caller mistake (a required input missing, an undeclared input); every
    /// problem with the token itself is a finding in the verdict.
    public func evaluate(token: String, inputs supplied: [String: JSONValue] = [:], now: Double,
                         trace tracing: Bool = false, clockSource: String = "caller") throws(EvaluationError) -> Verdict {
        let inputs = try resolveInputs(supplied)
        var trace = tracing ? Trace(clock: .init(now: now, iso8601: UnixTime.iso8601(now), source: clockSource)) : nil
        let decoded: DecodedToken
        switch TokenDecoder.decode(token, envelope: envelope) {
        case let .success(token):
            decoded = token
        case let .failure(failure):
            let at = failure.location?.description ?? (files.first ?? name) + ":1:1"
            let located = Finding(rule: failure.rule, code: failure.code, message: failure.message, at: at)
            if tracing {
                trace?.entries.append(.init(rule: failure.rule, status: .fail, at: at, detail: failure.message))
                for rule in root.rules { trace?.entries.append(.init(rule: rule.id, status: .notRun, at: rule.location.description, detail: "the token could not be \(failure.rule == "token.decryption" ? "decrypted" : "decoded")")) }
            }
            return Verdict(policy: name, valid: false, verified: false, findings: [located], skipped: [], outputs: [:], trace: trace)
        }
        let context = EvaluationContext(now: now, inputs: inputs, token: decoded, tracing: tracing)
        var evaluator = ChainEvaluator(context: context, failFast: mode == .failFast)
        // A failure may carry no finding (a rule blocked by another's failure), so `passed` is
        // not the same as "no findings".
        let (passed, findings): (Bool, [Finding])
        switch evaluator.run(root) {
        case .pass, .skipped: (passed, findings) = (true, [])
        case let .fail(found): (passed, findings) = (false, found)
        }
        // A plain JWE carries no signature: authenticated decryption is what proves its origin.
        let provenBy = envelope.format == .jwe ? decoded.decryptedBy : evaluator.verifiedKey
        let verified = provenBy != nil
        let valid = passed && verified
        if let decryption = envelope.decryption, let key = decoded.decryptedBy {
            trace?.entries.append(.init(rule: "token.decryption", status: .pass, at: decryption.location.description,
                                        detail: "decrypted with \(key.kid.map { "kid '\($0)'" } ?? "a key without kid") from \(key.source)"))
        }
        trace?.entries += evaluator.entries
        trace?.key = provenBy
        return Verdict(policy: name, valid: valid, verified: verified, findings: findings, skipped: evaluator.skipped,
                       outputs: valid ? outputValues(decoded) : [:], trace: trace)
    }

    /// Evaluates at a `Date`.
    public func evaluate(token: String, inputs: [String: JSONValue] = [:], at date: Date = Date(), trace: Bool = false) throws(EvaluationError) -> Verdict {
        try evaluate(token: token, inputs: inputs, now: date.timeIntervalSince1970, trace: trace, clockSource: "caller")
    }

    func resolveInputs(_ supplied: [String: JSONValue]) throws(EvaluationError) -> [String: JSONValue] {
        let undeclared = supplied.keys.filter { name in !inputs.contains { $0.name == name } }
        if let unknown = undeclared.min() {
            throw EvaluationError(.unknownInput, "the policy declares no input '\(unknown)'"
                                  + (Suggestion.didYouMean(unknown, among: inputs.map(\.name)).map { "; \($0)" } ?? ""))
        }
        var resolved: [String: JSONValue] = [:]
        for input in inputs {
            if let value = supplied[input.name] ?? input.defaultValue {
                resolved[input.name] = value
            } else if input.required {
                throw EvaluationError(.missingInput, "the policy requires the input '\(input.name)'" + (input.description.map { " (\($0))" } ?? ""))
            }
        }
        return resolved
    }

    private func outputValues(_ token: DecodedToken) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for output in outputs {
            switch output.source {
            case let .claim(path): values[output.name] = path.value(in: token.claims)
            case let .header(path): values[output.name] = path.value(in: token.header.object)
            }
        }
        return values
    }

}

/// A caller mistake that stops an evaluation before it starts.
public struct EvaluationError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missingInput = "missing_input"
        case unknownInput = "unknown_input"
    }

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
