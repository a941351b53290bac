@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `issuer`: an RFC 9207 `iss` parameter equals the expected authorization server, which stops
/// mix-up attacks; with `require_issuer: true` it must be present.
struct CallbackIssuerRule: Rule {
    static let key = "issuer"
    static let summary = "the RFC 9207 iss parameter equals the issuer (required with require_issuer)"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.inputInvalid, .issuerMissing, .issuerMismatch]
    static let argumentShape: ArgumentShape = .string
    /// Compiled even when absent, so a `require_issuer` without an `issuer` is reported.
    static let runsByDefault = true

    let expected: PolicyValue
    let required: Bool
    let mode: ResponseMode

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        let required = compiler.setting("require_issuer").flatMap { compiler.bool($0, what: "'require_issuer'") } ?? false
        guard let node else {
            if required, let flag = compiler.setting("require_issuer") {
                compiler.error(.missingKey, "'require_issuer' needs 'issuer': the value iss must equal", at: flag)
            }
            return []
        }
        guard let expected = compiler.stringValue(node, what: "'issuer'") else { return [] }
        compiler.lintIssuer([expected], at: node, checksKeyHost: false)
        return [compiler.finish(CallbackIssuerRule(expected: expected, required: required, mode: compiler.responseMode()), at: node.location)]
    }

    var explanation: String { "iss equals \(expected.display)\(required ? " and is required" : " when present")" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = context.resolve(expected)?.stringValue else { return .fail(.inputInvalid, "the input used by 'issuer' is not a string") }
        guard let parameters = mode.parameters(of: context.callback) else { return .blocked("the callback cannot be read (see callback.response)") }
        switch parameters.values("iss").count {
        case 0:
            return required ? .fail(.issuerMissing, "the callback has no iss parameter (RFC 9207), and the policy requires one") : .pass(context.detail("no iss; not required"))
        case 1:
            let issuer = parameters.values("iss")[0]
            guard issuer.isExactly(expected) else { return .fail(.issuerMismatch, "iss \"\(issuer)\" is not \"\(expected)\"") }
            return .pass(context.detail("iss matches"))
        default:
            return .blocked("iss is repeated (see callback.response)")
        }
    }
}
