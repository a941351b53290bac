@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// A token policy a rule checks a token against — one named (`{policy: NAME}`) or written inline
/// (`{token: {...}}`) — as `bearer` does for a request's token and `embedded_tokens` for a token
/// inside a claim.
struct NestedTokenPolicy: Sendable {
    /// The accepted forms, for the JSON Schema of policies.
    static let argumentShape: ArgumentShape = .anyOf([
        .mapping([("policy", .string, "the name of a token policy beside this one")], required: ["policy"]),
        .mapping([("token", .any, "an inline token section")], required: ["token"]),
    ])

    let policy: Policy
    /// Whether the policy is written inline rather than named.
    let isInline: Bool
    /// The inputs the policy declares, which each check hands on: found once, not per token.
    private let inputNames: Set<String>

    init(policy: Policy, isInline: Bool) {
        self.policy = policy
        self.isInline = isInline
        inputNames = Set(policy.inputs.map(\.name))
    }

    /// How messages name the policy: `policy rfc9068-access-token`, or its inline section.
    var described: String { isInline ? "its inline token section" : "policy \(policy.name)" }

    /// Compiles `node` (the value under `what`); the inline form is named `inlineName`.
    ///
    /// The policy must check a token and nothing else. A named policy's required inputs must be
    /// declared by the policy being compiled, which passes on every input it declares; an inline
    /// section declares the inputs of the policy it is written in, and uses those its rules read.
    static func compile(_ node: YAMLNode, what: String, inlineName: String, _ compiler: inout RuleCompiler) -> NestedTokenPolicy? {
        guard let pairs = compiler.mapping(node, allowed: ["policy", "token"], what: what) else { return nil }
        guard pairs.count == 1, let pair = pairs.first else {
            compiler.error(pairs.isEmpty ? .missingKey : .conflict, "\(what) holds either 'policy: NAME' or an inline 'token' section", at: node)
            return nil
        }
        let nested: Policy?
        let isInline = pair.name == "token"
        if isInline {
            nested = compiler.inlinePolicy(section: "token", pair.value, name: inlineName, at: pair.value)
        } else {
            guard let name = compiler.literalString(pair.value, what: "\(what).policy") else { return nil }
            nested = compiler.namedPolicy(name, at: pair.value)
        }
        guard let nested else { return nil }
        guard nested.subjects == ["token"] else {
            compiler.error(.invalidValue, "the policy '\(nested.name)' of \(what) must check a token and nothing else; it checks \(nested.subjects.joined(separator: ", "))",
                           at: pair.value)
            return nil
        }
        for input in nested.inputs where input.required && !compiler.declaredInputs.contains(input.name) {
            compiler.error(.undeclaredInput, "the policy '\(nested.name)' of \(what) requires the input '\(input.name)', which this policy does not declare",
                           at: pair.value, hint: "declare '\(input.name)' under 'inputs' so it can be passed on")
        }
        // An inline section declares all of this policy's inputs; it uses those its rules read.
        let handedOn = isInline ? Array(Set(nested.root.rules.flatMap(\.inputs))) : nested.inputs.map(\.name)
        compiler.passesOn(inputs: handedOn.filter(compiler.declaredInputs.contains))
        return NestedTokenPolicy(policy: nested, isInline: isInline)
    }

    /// The codes a check can report besides the rule's own: keys go missing only from remote
    /// sources, and an input only when the nested policy needs one.
    var reportableCodes: [FindingCode] {
        (policy.remoteKeySources.isEmpty ? [] : [.keyUnavailable]) + (policy.inputs.contains { $0.required } ? [.inputInvalid] : [])
    }

    /// Judges `token` (described as `what`, e.g. "the bearer token") with the nested policy at the
    /// context's time and inputs, from cached keys only: the enclosing evaluation fetched them.
    ///
    /// - Returns: the nested verdict when it is valid, or the failing outcome: `invalidCode` with
    ///   the nested findings, `key_unavailable` or `input_invalid`.
    func judge(_ token: String, what: String, invalidCode: FindingCode, in context: EvaluationContext) -> Judgement {
        let inputs = context.inputs.filter { name, _ in inputNames.contains(name) }
        let verdict: Verdict
        do {
            var request = EvaluationRequest(token: token, inputs: inputs, now: context.now, trace: context.tracing,
                                            signatureCache: context.signatureCache)
            request.decoded = context.embeddedTokens
            verdict = try policy.evaluateNow(request).verdict
        } catch {
            let code: FindingCode = error.code == .keysNotCached ? .keyUnavailable : .inputInvalid
            return .refused(.fail(code, "\(what) could not be checked with \(described): \(error.message)"))
        }
        guard verdict.valid else {
            var seen: Set<String> = []
            let codes = verdict.codes.map(\.rawValue).filter { seen.insert($0).inserted }.joined(separator: ", ")
            return .refused(.fail(invalidCode, "\(what) fails \(described)\(codes.isEmpty ? "" : ": \(codes)")", nested: verdict.findings,
                                  nestedTrace: verdict.trace?.entries ?? []))
        }
        return .valid(verdict)
    }

    /// What `judge` found.
    enum Judgement {
        /// The token satisfies the policy; its verdict.
        case valid(Verdict)
        /// The rule's failing outcome.
        case refused(RuleOutcome)
    }
}
