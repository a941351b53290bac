@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// What an HTTP front must know of a policy's `dpop` rule to answer as RFC 9449 §7.1 asks:
/// whether it accepts the `DPoP` scheme, the algorithms to advertise, and the nonce to hand a
/// client refused with `use_dpop_nonce`.
package struct DPoPRequirement: Sendable {
    /// The algorithms a proof may use, for `WWW-Authenticate: DPoP algs="..."`.
    package let algorithms: [JWSAlgorithm]
    /// Whether every request must use DPoP; false lets unbound bearer tokens through too.
    package let required: Bool
    /// The server nonce the proof must carry, when the policy asks for one.
    package let nonce: PolicyValue?

    /// The codes that say the proof itself is not acceptable, answered `invalid_dpop_proof`;
    /// the token's binding (`invalid_token`) and the nonce (`use_dpop_nonce`) are answered apart.
    package static let proofCodes: Set<FindingCode> = Set(FindingCode.dpopCodes).subtracting([.dpopTokenUnbound, .dpopBindingMismatch, .useDPoPNonce])

    /// The requirement of `policy`'s `dpop` rule; nil when it has none.
    package init?(_ policy: Policy) {
        guard let rule = policy.root.rules.lazy.compactMap({ $0.rule as? DPoPRule }).first else { return nil }
        algorithms = rule.settings.algorithms
        required = rule.settings.required
        nonce = rule.settings.nonce
    }
}
