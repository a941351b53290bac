import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules

/// The surfaces that read untrusted bytes, each as a function of one input for libFuzzer (and
/// for replaying committed corpora in the test suite).
///
/// A target does more than survive its input: it checks the invariants that make a refusal
/// trustworthy, and traps (which the fuzzer reports) when one breaks.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A compact token against fixed policies, through the signature cache.
    case token
    /// A JWK or JWK Set document.
    case jwks
    /// The JSON parser, differentially against Foundation on what both accept.
    case json
    /// A YAML policy, loaded and compiled.
    case policy
    /// A request subject with the request rules.
    case request
    /// A callback URL with the callback rules.
    case callback
    /// Batch lines (gzip recognised by its magic bytes) read and turned into records.
    case batch

    /// Runs the target on one input.
    public func run(_ data: [UInt8]) {
        switch self {
        case .token: TokenFuzzing.run(data)
        case .jwks: KeyFuzzing.run(data)
        case .json: JSONFuzzing.run(data)
        case .policy: PolicyFuzzing.run(data)
        case .request: RequestFuzzing.run(data)
        case .callback: CallbackFuzzing.run(data)
        case .batch: BatchFuzzing.run(data)
        }
    }
}

/// Stops the process with a message naming the broken invariant, so the fuzzer keeps the input.
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz invariant broken: \(message())\n".utf8))
        abort()
    }
}

/// The instant every target evaluates at: 2026-11-21T09:30:00Z.
let fuzzNow: UnixTime = 1_795_253_400

/// Checks that a verdict says what a verdict must: valid only when verified (for tokens) and
/// without findings; its JSON parses back.
func checkVerdict(_ verdict: Verdict, proves token: Bool) {
    if verdict.valid {
        invariant(verdict.findings.isEmpty, "a valid verdict with findings")
        if token { invariant(verdict.verified, "a valid token verdict that is not verified") }
    }
    invariant((try? JSONParser(maxDepth: JSONParser.deepestSupported).parse(verdict.json.serializedBytes())) != nil, "a verdict whose JSON does not parse back")
}
