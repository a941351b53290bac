@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The shared check of `c_hash` and `at_hash` (OIDC Core 3.3.2.11, 3.2.2.9): the claim equals
/// base64url of the left half of H(ASCII(value)), with H the hash of the token's `alg`.
struct HalfHashCheck: Sendable {
    let claim: String
    let value: PolicyValue
    let code: FindingCode
    /// The policy's algorithms: the hash is the allowed `alg`'s, never one a refused `alg` picks.
    let allowed: [JWSAlgorithm]

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expectedInput = context.resolve(value)?.stringValue else {
            return .fail(.inputInvalid, "the input used by '\(claim)' is not a string")
        }
        guard let present = context.decoded.claims[claim] else { return .fail(.claimMissing, "the token has no \(claim)") }
        guard case let .string(actual) = present else { return .fail(.claimType, "'\(claim)' must be a string, found \(present.typeName)") }
        guard let algorithm = context.decoded.jws?.algorithm else { return .unsignedToken }
        guard allowed.contains(algorithm) else { return .blocked("alg \(algorithm.rawValue) is not allowed (see token.algorithms); \(claim) was not checked") }
        guard algorithm.hashForOIDC != nil else {
            return .fail(code, "\(algorithm.rawValue) defines no hash for \(claim)")
        }
        guard OIDCHash.matches(claim: actual, value: expectedInput, algorithm: algorithm) else {
            return .fail(code, "\(claim) does not match the \(claim == "c_hash" ? "authorization code" : "access token") (hash of \(algorithm.rawValue))")
        }
        return .pass(context.detail("\(claim) matches (hash of \(algorithm.rawValue))"))
    }
}

/// A rule that checks one half-hash claim: the key names the claim, `code` its finding.
protocol HalfHashRule: Rule {
    static var code: FindingCode { get }
    var check: HalfHashCheck { get }
    init(check: HalfHashCheck)
}

extension HalfHashRule {
    static var phase: RulePhase { .hashes }
    static var findingCodes: [FindingCode] { [.inputInvalid, .claimMissing, .claimType, code] }
    static var argumentShape: ArgumentShape { .string }

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node else { return [] }
        if compiler.tokensAreUnsigned {
            compiler.refuseForUnsignedTokens(key, node, instead: "the hash is taken with the signature's algorithm; drop it")
            return []
        }
        guard let value = compiler.stringValue(node, what: "'\(key)'") else { return [] }
        return [compiler.finish(Self(check: HalfHashCheck(claim: key, value: value, code: code, allowed: compiler.tokenSettings.algorithms ?? [])), at: node.location)]
    }

    var explanation: String { "\(Self.key) is the left half of the alg's hash of \(check.value.display)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome { check.evaluate(context) }
}

/// `c_hash`: binds the ID token to the authorization code returned with it.
struct CHashRule: HalfHashRule {
    static let key = "c_hash"
    static let summary = "c_hash is the left-half hash of the authorization code"
    static let code = FindingCode.cHashMismatch

    let check: HalfHashCheck
}

/// `at_hash`: binds the ID token to the access token issued with it.
struct AtHashRule: HalfHashRule {
    static let key = "at_hash"
    static let summary = "at_hash is the left-half hash of the access token"
    static let code = FindingCode.atHashMismatch

    let check: HalfHashCheck
}
