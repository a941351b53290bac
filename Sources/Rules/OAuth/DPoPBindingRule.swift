@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// The binding half of `dpop` (RFC 9449 §7.1, §7.2): the access token the policy judged is the
/// one the `Authorization: DPoP` header presents, and its `cnf.jkt` is the thumbprint of the
/// proof's key. A token bound to a key is never accepted as a bearer token.
///
/// Runs with the claims, after the token's signature: a forged token's `cnf` is never read.
struct DPoPBindingRule: Rule {
    static let key = "dpop"
    static let summary = "the access token is bound (cnf.jkt) to the DPoP proof's key"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.dpopProofMissing, .dpopTokenUnbound, .dpopBindingMismatch]
    static let argumentShape: ArgumentShape = .any
    static let isConfigurable = false

    /// Whether a token not bound to a key may come as a bearer token (`dpop.required: false`).
    let required: Bool

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }

    var explanation: String { "the access token's cnf.jkt is the thumbprint of the DPoP proof's key" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let token = context.token else { return .blocked("no access token was judged") }
        let jkt: String?
        switch token.claims["cnf"] {
        case nil: jkt = nil
        case let .object(confirmation)?: jkt = confirmation["jkt"]?.stringValue
        case let other?: return .fail(.dpopTokenUnbound, "the access token's cnf is \(other.typeName), not an object naming the key it is bound to")
        }
        switch context.request.credential {
        case let .success(credential) where credential.scheme == .dpop:
            guard let text = context.tokenText, ConstantTime.equals(text, credential.token) else {
                return .fail(.dpopBindingMismatch, "the token judged is not the one the request's Authorization header presents")
            }
        case let .success(credential):
            if jkt != nil {
                return .fail(.dpopProofMissing, "the access token is bound to a key (cnf.jkt) and is sent as a bearer token; RFC 9449 §7.2 refuses it: send 'Authorization: DPoP <token>' with a proof")
            }
            if required {
                return .fail(.dpopProofMissing, "the access token is sent with the \(credential.scheme.rawValue) scheme; the policy requires 'Authorization: DPoP <token>' with a DPoP proof")
            }
            return .pass(context.detail("a bearer token not bound to a key (dpop.required: false)"))
        case .failure:
            return .fail(.dpopProofMissing, "the request presents no access token in its Authorization header; a DPoP-bound request sends 'Authorization: DPoP <token>'")
        }
        guard case let .success(proof)? = context.request.dpopProof else { return .blocked("the request has no usable DPoP proof (see request.dpop)") }
        guard let jkt else {
            return .fail(.dpopTokenUnbound, "the access token names no key it is bound to (cnf.jkt), and is presented with DPoP")
        }
        guard ConstantTime.equals(jkt, proof.thumbprint) else {
            return .fail(.dpopBindingMismatch, "the access token is bound to another key: its cnf.jkt is not the thumbprint of the DPoP proof's key")
        }
        return .pass(context.detail("cnf.jkt \(jkt) is the proof key's thumbprint"))
    }
}

/// The server-nonce half of `dpop` (RFC 9449 §8): the proof carries the nonce the server gave
/// the client. A refusal is `use_dpop_nonce`, which HTTP fronts answer with the nonce to use.
struct DPoPNonceRule: Rule {
    static let key = "dpop"
    static let summary = "the DPoP proof carries the server's nonce"
    static let phase = RulePhase.claims
    static let failureMeaning = RuleFailureMeaning.notAuthenticated
    static let findingCodes: [FindingCode] = [.inputInvalid, .useDPoPNonce]
    static let argumentShape: ArgumentShape = .any
    static let isConfigurable = false

    /// The nonce expected, usually an input the server fills with its current nonce.
    let nonce: PolicyValue

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }

    var explanation: String { "the DPoP proof's nonce equals \(nonce.display)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = context.resolve(nonce)?.stringValue else { return .fail(.inputInvalid, "the input used by 'dpop.nonce' is not a string") }
        guard case let .success(proof)? = context.request.dpopProof else { return .blocked("the request has no usable DPoP proof (see request.dpop)") }
        guard let sent = proof.nonce else { return .fail(.useDPoPNonce, "the DPoP proof carries no nonce, and the server requires its current one") }
        guard ConstantTime.equals(sent, expected) else { return .fail(.useDPoPNonce, "the DPoP proof's nonce is not the server's current one") }
        return .pass(context.detail("the DPoP proof carries the server's nonce"))
    }
}
