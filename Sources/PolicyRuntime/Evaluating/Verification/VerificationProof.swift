@_spi(RuleAuthoring) import PolicyJOSE

/// The engine's word that a token's signature verified (or its decryption authenticated) with a
/// key the policy allows.
///
/// Only the engine makes one: when it verifies a signature itself, and in the verdict of a
/// policy it evaluated (`Verdict.proof`), which a rule that judges a token through another
/// policy (`bearer`) hands on. A rule cannot claim a verification it did not get from the
/// engine, so "valid only if verified" holds whatever rules a registry holds. A verdict read
/// back from JSON carries none.
public struct VerificationProof: Sendable, Equatable {
    /// The key that verified, as the trace shows it.
    public let key: VerifiedKey

    init(key: VerifiedKey) {
        self.key = key
    }
}
