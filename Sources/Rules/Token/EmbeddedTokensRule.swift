@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `embedded_tokens`: a named claim holds a compact token that satisfies another policy — one
/// named (`{policy: NAME}`) or written inline (`{token: {...}}`) — as gematik's signed challenge
/// carries the IDP's own challenge token in `njwt`. One rule per claim; the embedded token's
/// findings are nested under its finding.
///
/// The embedded token is judged at the same time and with the inputs its policy declares, and
/// must be valid in its own right (its own signature or decryption): the outer token's
/// signature says who passed it on, not who made it.
struct EmbeddedTokensRule: TokenEmbeddingRule {
    static let key = "embedded_tokens"
    static let summary = "each named claim holds a token that satisfies a named or inline token policy"
    static let phase = RulePhase.signature
    static let findingCodes: [FindingCode] = [.claimMissing, .claimType, .embeddedTokenInvalid, .keyUnavailable, .inputInvalid]
    static let argumentShape: ArgumentShape = .namedMapping(NestedTokenPolicy.argumentShape)

    let path: ClaimPath
    let nested: NestedTokenPolicy

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        guard let pairs = node.pairs, !pairs.isEmpty else {
            compiler.error(.wrongType, "'embedded_tokens' must map claim paths to {policy: NAME} or {token: {...}}, found \(node.shapeDescription)", at: node)
            return []
        }
        return pairs.compactMap { pair in
            let keyNode = YAMLNode(.scalar(YAMLScalar(text: pair.name, isPlain: false)), location: pair.keyLocation, path: pair.value.path)
            guard let path = compiler.claimPath(pair.name, at: keyNode),
                  let nested = NestedTokenPolicy.compile(pair.value, what: "'embedded_tokens.\(pair.name)'",
                                                         inlineName: "\(compiler.sectionName).embedded_tokens.\(pair.name)", &compiler) else { return nil }
            return compiler.finish(EmbeddedTokensRule(path: path, nested: nested), id: path.description, at: pair.keyLocation)
        }
    }

    var reportableCodes: [FindingCode] { [.claimMissing, .claimType, .embeddedTokenInvalid] + nested.reportableCodes }

    var embeddedPolicy: (claim: ClaimPath, policy: Policy) { (path, nested.policy) }

    var explanation: String { "claim \(path) holds a token that satisfies \(nested.described)" }

    func embeddedTokens(in token: DecodedToken) -> [String] {
        if case let .string(embedded)? = path.value(in: token.claims) { return [embedded] }
        return []
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let value = path.value(in: context.decoded.claims) else { return .fail(.claimMissing, "the token has no \(path) claim") }
        guard case let .string(token) = value else {
            return .fail(.claimType, "\(path): a token is a string in compact serialization, found \(value.typeName)")
        }
        switch nested.judge(token, what: "the token in claim \(path)", invalidCode: .embeddedTokenInvalid, in: context) {
        case let .valid(verdict):
            return .pass(context.detail("the token in claim \(path) satisfies \(nested.described)"), nestedTrace: verdict.trace?.entries ?? [])
        case let .refused(outcome): return outcome
        }
    }
}
