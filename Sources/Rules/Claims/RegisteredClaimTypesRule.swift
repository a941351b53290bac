@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The RFC 7519 registered claims have fixed types, checked whether or not the policy names them:
/// `exp`, `nbf`, `iat` numbers; `iss`, `sub`, `jti`, `azp`, `nonce` strings; `aud` a string or
/// an array of strings. Other rules read these claims assuming the types hold.
struct RegisteredClaimTypesRule: Rule {
    static let key = "claim_types"
    static let summary = "registered claims have their RFC 7519 types"
    static let phase = RulePhase.structure
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.claimType]
    static let argumentShape: ArgumentShape = .any
    static let runsByDefault = true
    static let isConfigurable = false

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        [compiler.finish(RegisteredClaimTypesRule(), at: compiler.sectionLocation)]
    }

    var explanation: String { "exp, nbf, iat are numbers; iss, sub, jti, azp, nonce strings; aud a string or array of strings" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        context.decoded.registeredClaimTypes()
    }
}

extension DecodedToken {
    /// `RegisteredClaimTypesRule`'s outcome, read in place from the claims this token holds
    /// (see `numericDate`).
    fileprivate func registeredClaimTypes() -> RuleOutcome {
        // Most tokens: every registered claim present of its common type, told in one pass.
        if claims.registeredClaimsHaveCommonTypes { return .pass() }
        // Each claim named in turn rather than from a list: the index finds each with one load,
        // which a static array's access and copies would outweigh.
        func number(_ name: RegisteredClaim) -> RuleOutcome? {
            guard case let .unusable(reason) = numericDate(name) else { return nil }
            return .fail(.claimType, FindingMessage(reason))
        }
        func string(_ name: RegisteredClaim) -> RuleOutcome? {
            guard let kind = kind(of: name), kind != .string else { return nil }
            return .fail(.claimType, "'\(name)' must be a string, found \(kind.name)")
        }
        if let failure = number(.exp) ?? number(.nbf) ?? number(.iat)
            ?? string(.iss) ?? string(.sub) ?? string(.jti) ?? string(.azp) ?? string(.nonce) {
            return failure
        }
        // A string audience is checked by its kind alone, without building it.
        switch kind(of: RegisteredClaim.aud) {
        case nil, .string?: return .pass()
        case .array? where audiences != nil: return .pass()
        case let kind?:
            return .fail(.claimType, "'aud' must be a string or an array of strings, found \(kind == .array ? "an array with a non-string" : kind.name)")
        }
    }
}
