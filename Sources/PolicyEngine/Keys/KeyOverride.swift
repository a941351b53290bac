/// Key sets that stand in for every key source a policy names, so a test runner can mint tokens
/// the policy accepts without the issuer's private keys (`policy-run test`).
///
/// The policy's own sources are still read and checked at compile time (a missing key file is
/// still an error); then each keeps its options (`require_kid`, `min_rsa_bits`) and only its keys
/// change. Remote sources are never fetched, and `x5c` trust gives way to the test keys.
public struct KeyOverride: Sendable {
    /// Public verification keys, for sources of public keys (files, `jwks_uri`, `discovery`, `x5c`).
    public let publicKeys: JWKSet
    /// Private and secret keys: for verification sources whose own keys are secret (a `secret`,
    /// a set of `oct` keys), and for every decryption and encryption source.
    public let privateKeys: JWKSet

    /// Stand-in sets; `publicKeys` must hold only public keys and `privateKeys` only private or
    /// secret ones, as `JWKSet` requires of any set.
    public init(publicKeys: JWKSet, privateKeys: JWKSet) {
        self.publicKeys = publicKeys
        self.privateKeys = privateKeys
    }

    /// `source` with its keys replaced by the stand-ins of the same kind.
    func standingIn(for source: KeySource) -> KeySource {
        let ownKeysAreSecret = source.localKeys?.keys.first?.isPrivate == true
        let keys = source.purpose == .verification && !ownKeysAreSecret ? publicKeys : privateKeys
        return KeySource(origin: .local(keys), purpose: source.purpose, description: "test keys standing in for \(source.description)",
                         requireKid: source.requireKid, keyOptions: source.keyOptions)
    }
}
