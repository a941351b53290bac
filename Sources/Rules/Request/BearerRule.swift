import PolicyEngine

/// `bearer`: the request's `Authorization: Bearer` token (RFC 6750 §2.1) satisfies another
/// policy — one named (`{policy: NAME}`) or written inline (`{token: {...}}`). Its findings are
/// nested under this rule's, so a verdict shows why the token failed.
struct BearerRule: Rule {
    static let key = "bearer"
    static let summary = "the Authorization: Bearer token satisfies a named or inline token policy"
    static let phase = RulePhase.signature
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
        switch context.request.bearerToken {
        case let .token(found): token = found
        case let .problem(message): return .fail(.bearerMissing, message)
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
    /// What the `Authorization` header holds for a bearer check.
    enum BearerToken {
        case token(String)
        case problem(String)
    }

    /// RFC 6750 `b64token` characters, before any trailing `=`.
    private static let b64tokenCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8)

    /// The token of a single `Authorization: Bearer` header; the scheme is case-insensitive
    /// (RFC 9110 §11.1) and the token must have RFC 6750's `b64token` syntax.
    var bearerToken: BearerToken {
        let values = header("authorization")
        guard !values.isEmpty else { return .problem("the request has no Authorization header") }
        guard values.count == 1 else { return .problem("the request has \(values.count) Authorization headers") }
        let parts = values[0].split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .problem("the Authorization header is not 'Bearer <token>'")
        }
        let token = parts[1]
        let body = token.utf8.reversed().drop { $0 == UInt8(ascii: "=") }
        guard !body.isEmpty, body.allSatisfy({ Self.b64tokenCharacters.contains($0) }) else {
            return .problem("the bearer token is not a b64token (RFC 6750 §2.1)")
        }
        return .token(String(token))
    }

    public var embeddedTokens: [String] {
        if case let .token(token) = bearerToken { return [token] }
        return []
    }
}
