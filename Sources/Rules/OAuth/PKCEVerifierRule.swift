@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `verifier`: the code verifier has RFC 7636 §4.1's form, 43–128 characters of
/// `[A-Za-z0-9-._~]`. Messages never repeat the verifier: it is the secret half of the pair.
struct PKCEVerifierRule: Rule {
    static let key = "verifier"
    static let summary = "the code verifier is 43–128 characters of [A-Za-z0-9-._~]"
    static let phase = RulePhase.structure
    static let findingCodes: [FindingCode] = [.inputInvalid, .pkceVerifierInvalid]
    static let argumentShape: ArgumentShape = .string

    let verifier: PolicyValue

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let verifier = compiler.stringValue(node, what: "'verifier'") else { return [] }
        _ = compiler.pkceMethods()
        return [compiler.finish(PKCEVerifierRule(verifier: verifier), at: node.location)]
    }

    var explanation: String { "the verifier \(verifier.display) is 43–128 characters of [A-Za-z0-9-._~]" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let text = context.resolve(verifier)?.stringValue else { return .fail(.inputInvalid, "the verifier input is not a string") }
        if let problem = Self.problem(text) { return .fail(.pkceVerifierInvalid, FindingMessage(problem)) }
        return .pass(context.detail("the verifier is well formed (\(text.utf8.count) characters)"))
    }

    /// What is wrong with a verifier, without showing it; nil when it is well formed.
    static func problem(_ verifier: String) -> String? {
        guard !PKCE.isWellFormed(verifier: verifier) else { return nil }
        let count = verifier.utf8.count
        guard (43...128).contains(count) else { return "the verifier has \(count) characters; RFC 7636 requires 43 to 128" }
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
        let position = verifier.unicodeScalars.firstIndex { !unreserved.contains($0) }.map { verifier.unicodeScalars.distance(from: verifier.unicodeScalars.startIndex, to: $0) } ?? 0
        return "the verifier has a character outside [A-Za-z0-9-._~] at position \(position + 1)"
    }
}
