@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// `state`: the callback's `state` equals the one the client sent, binding the response to the
/// browser session that asked for it (RFC 6749 §10.12).
struct CallbackStateRule: Rule {
    static let key = "state"
    static let summary = "state equals the value the client sent"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.inputInvalid, .stateMismatch]
    static let argumentShape: ArgumentShape = .string

    let expected: PolicyValue
    let mode: ResponseMode

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let expected = compiler.stringValue(node, what: "'state'") else { return [] }
        return [compiler.finish(CallbackStateRule(expected: expected, mode: compiler.responseMode()), at: node.location)]
    }

    var explanation: String { "state equals \(expected.display)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = context.resolve(expected)?.stringValue else { return .fail(.inputInvalid, "the input used by 'state' is not a string") }
        guard let state = mode.parameters(of: context.callback)?.single("state"), !state.isEmpty else {
            return .blocked("the callback has no single state (see callback.response)")
        }
        guard ConstantTime.equals(state, expected) else { return .fail(.stateMismatch, "state \"\(state)\" is not the state the client sent") }
        return .pass(context.detail("state matches"))
    }
}
