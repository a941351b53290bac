import PolicyEngine

/// `bearer`: the request's `Authorization: Bearer` token (RFC 6750 §2.1) satisfies another
/// policy — one named (`{policy: NAME}`) or written inline (`{token: {...}}`). Its findings are
/// nested under this rule's, so a verdict shows why the token failed.
struct BearerRule: Rule {
    static let key = "bearer"
    static let summary = "the Authorization: Bearer token satisfies a named or inline token policy"
    static let phase = RulePhase.signature
    static let findingCodes: [FindingCode] = [.bearerMissing, .bearerInvalid, .keyUnavailable, .inputInvalid]
    static let argumentShape: ArgumentShape = .anyOf([
        .mapping([("policy", .string, "the name of a token policy beside this one")], required: ["policy"]),
        .mapping([("token", .any, "an inline token section")], required: ["token"]),
    ])

    let policy: Policy

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let pairs = compiler.mapping(node, allowed: ["policy", "token"], what: "'bearer'") else { return [] }
        guard pairs.count == 1, let pair = pairs.first else {
            compiler.error(pairs.isEmpty ? .missingKey : .conflict, "'bearer' holds either 'policy: NAME' or an inline 'token' section", at: node)
            return []
        }
        let nested: Policy?
        if pair.name == "policy" {
            guard let name = compiler.literalString(pair.value, what: "'bearer.policy'") else { return [] }
            nested = compiler.namedPolicy(name, at: pair.value)
        } else {
            nested = compiler.inlinePolicy(section: "token", pair.value, name: "\(compiler.sectionName).bearer", at: pair.value)
        }
        guard let nested else { return [] }
        guard nested.subjects == ["token"] else {
            compiler.error(.invalidValue, "the bearer policy '\(nested.name)' must check a token and nothing else; it checks \(nested.subjects.joined(separator: ", "))",
                           at: pair.value)
            return []
        }
        for input in nested.inputs where input.required && !compiler.declaredInputs.contains(input.name) {
            compiler.error(.undeclaredInput, "the bearer policy '\(nested.name)' requires the input '\(input.name)', which this policy does not declare", at: pair.value,
                           hint: "declare '\(input.name)' under 'inputs' so it can be passed on")
        }
        compiler.passesOn(inputs: nested.inputs.map(\.name).filter(compiler.declaredInputs.contains))
        return [compiler.finish(BearerRule(policy: nested), at: node.location)]
    }

    /// Keys go missing only from remote sources, and an input only when the bearer policy needs one.
    var reportableCodes: [FindingCode] {
        [.bearerMissing, .bearerInvalid] + (policy.remoteKeySources.isEmpty ? [] : [.keyUnavailable])
            + (policy.inputs.contains { $0.required } ? [.inputInvalid] : [])
    }

    var explanation: String { "the Authorization: Bearer token satisfies policy \(policy.name)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        let token: String
        switch context.request.bearerToken {
        case let .token(found): token = found
        case let .problem(message): return .fail(.bearerMissing, message)
        }
        let inputs = context.inputs.filter { name, _ in policy.inputs.contains { $0.name == name } }
        let verdict: Verdict
        do {
            verdict = try policy.evaluateNow(token: token, inputs: inputs, now: context.now, trace: context.tracing)
        } catch {
            let code: FindingCode = error.code == .keysNotCached ? .keyUnavailable : .inputInvalid
            return .fail(code, "the bearer token could not be checked with policy \(policy.name): \(error.message)")
        }
        guard verdict.valid else {
            let codes = verdict.codes.map(\.rawValue).joined(separator: ", ")
            return .fail(.bearerInvalid, "the bearer token fails policy \(policy.name)" + (codes.isEmpty ? "" : ": \(codes)"), nested: verdict.findings)
        }
        // The request is as trustworthy as its token: the engine's proof from that verdict
        // counts it as verified (a valid token verdict always carries one).
        guard let proof = verdict.proof else {
            return .fail(.bearerInvalid, "the bearer token satisfies policy \(policy.name), but its verdict carries no proof of verification")
        }
        return .verified(by: proof, detail: context.detail("the bearer token satisfies policy \(policy.name)"))
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
