@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `bearer`: the request's `Authorization: Bearer` token (RFC 6750 §2.1) satisfies another
/// policy — one named (`{policy: NAME}`) or written inline (`{token: {...}}`). Its findings are
/// nested under this rule's, so a verdict shows why the token failed.
struct BearerRule: Rule {
    static let key = "bearer"
    static let summary = "the Authorization: Bearer token satisfies a named or inline token policy"
    static let phase = RulePhase.signature
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.bearerMissing, .bearerInvalid, .keyUnavailable, .inputInvalid]
    static let argumentShape = NestedTokenPolicy.argumentShape

    let nested: NestedTokenPolicy

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let nested = NestedTokenPolicy.compile(node, what: "'bearer'", inlineName: "\(compiler.sectionName).bearer", &compiler) else { return [] }
        return [compiler.finish(BearerRule(nested: nested), at: node.location)]
    }

    var reportableCodes: [FindingCode] { [.bearerMissing, .bearerInvalid] + nested.reportableCodes }

    var explanation: String { "the Authorization: Bearer token satisfies \(nested.described)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let token: String
        switch context.request.credential {
        case let .success(found) where found.scheme == .bearer: token = found.token
        case .success: return .fail(.bearerMissing, "the Authorization header presents a DPoP token; 'bearer' judges a Bearer token, and 'dpop' a DPoP-bound one")
        case let .failure(problem): return .fail(.bearerMissing, FindingMessage(problem.message))
        }
        let verdict: Verdict
        switch nested.judge(token, what: "the bearer token", invalidCode: .bearerInvalid, in: context) {
        case let .valid(valid): verdict = valid
        case let .refused(outcome): return outcome
        }
        // The request is as trustworthy as its token: the engine's proof from that verdict
        // counts it as verified (a valid token verdict always carries one).
        guard let proof = verdict.proof else {
            return .fail(.bearerInvalid, "the bearer token satisfies \(nested.described), but its verdict carries no proof of verification")
        }
        return .verified(by: proof, detail: context.detail("the bearer token satisfies \(nested.described)"), nestedTrace: verdict.trace?.entries ?? [])
    }
}

extension RequestSubject {
    /// The token of the `Authorization` header, when it holds exactly one.
    public var embeddedTokens: [String] {
        if case let .success(credential) = credential { return [credential.token] }
        return []
    }

    /// The token of the `Authorization` header, `Bearer` or `DPoP`, when it holds exactly one.
    public var presentedToken: String? {
        if case let .success(credential) = credential { return credential.token }
        return nil
    }
}
