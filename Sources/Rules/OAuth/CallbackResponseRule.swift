@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// Always runs: the callback is a URL whose response parameters decode, none is repeated, and
/// it carries either an `error` (reported with its description) or a non-empty `code` and
/// `state`, which a valid verdict hands over as outputs.
struct CallbackResponseRule: Rule {
    static let key = "response"
    static let summary = "the callback decodes, repeats no parameter, and carries a code and state (or reports its error)"
    static let phase = RulePhase.structure
    static let findingCodes: [FindingCode] = [.callbackMalformed, .parameterRepeated, .callbackError, .codeMissing, .stateMissing]
    static let argumentShape: ArgumentShape = .any
    static let runsByDefault = true
    static let isConfigurable = false

    /// Longest `error_description` quoted in a finding; the rest is cut off.
    static let maxDescription = 300

    let mode: ResponseMode

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        [compiler.finish(CallbackResponseRule(mode: compiler.responseMode()), at: compiler.sectionLocation)]
    }

    var explanation: String {
        "the callback's \(mode.rawValue) decodes as a form, repeats no parameter, and has a code and state, not an error"
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let callback = context.callback
        if let problem = mode.problem(of: callback) { return .fail(.callbackMalformed, FindingMessage(problem)) }
        guard let parameters = mode.parameters(of: callback) else { return .fail(.callbackMalformed, "the \(mode.rawValue) cannot be read") }
        if let repeated = parameters.repeatedNames.first {
            return .fail(.parameterRepeated, "the parameter '\(repeated)' appears \(parameters.values(repeated).count) times in the \(mode.rawValue)")
        }
        if let error = parameters.single("error") {
            let description = parameters.single("error_description").map { text in
                ": " + (text.count > Self.maxDescription ? text.prefix(Self.maxDescription) + "…" : Substring(text))
            } ?? ""
            return .fail(.callbackError, "the authorization server answered '\(error)'\(description)")
        }
        guard let code = parameters.single("code"), !code.isEmpty else {
            return .fail(.codeMissing, "the callback's \(mode.rawValue) has no code")
        }
        guard let state = parameters.single("state"), !state.isEmpty else {
            return .fail(.stateMissing, "the callback's \(mode.rawValue) has no state")
        }
        return .pass(context.detail("a code and state in the \(mode.rawValue)"), outputs: ["code": .string(code), "state": .string(state)])
    }
}
