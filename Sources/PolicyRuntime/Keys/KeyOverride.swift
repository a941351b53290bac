internal import PolicyCrypto
@_spi(RuleAuthoring) package import PolicyJOSE

/// Key sets that stand in for every key source a policy names, so a test runner can mint tokens
/// the policy accepts without the issuer's private keys (`policy-run test`).
///
/// The policy's own sources are still read and checked at compile time (a missing key file is
/// still an error); then each keeps its options (`require_kid`, `min_rsa_bits`) and only its keys
/// change. Remote sources are never fetched, and `x5c` trust gives way to the test keys. A
/// source that chooses keys by `kid` (a JWKS with kids, a remote set) gets the keys with their
/// kids; one that cannot (a PEM file, a `secret`, an `x5c` chain) gets them without, so a token's
/// `kid` matters to the stand-in exactly as much as it does to the policy. A source of local keys
/// gets only stand-ins of its own keys' family and curve (or secret length), so settings checked
/// against those keys (which JWE algorithms a decryption key serves) hold for the stand-ins too.
package struct KeyOverride: Sendable {
    /// Public verification keys, for sources of public keys (files, `jwks_uri`, `discovery`, `x5c`).
    package let publicKeys: JWKSet
    /// Private and secret keys: for verification sources whose own keys are secret (a `secret`,
    /// a set of `oct` keys), and for every decryption and encryption source.
    package let privateKeys: JWKSet
    private let anonymousPublicKeys: JWKSet
    private let anonymousPrivateKeys: JWKSet

    /// Stand-in sets; `publicKeys` must hold only public keys and `privateKeys` only private or
    /// secret ones, as `JWKSet` requires of any set.
    ///
    /// - Throws: `JOSEError` if a key cannot be copied without its `kid`.
    package init(publicKeys: JWKSet, privateKeys: JWKSet) throws(JOSEError) {
        self.publicKeys = publicKeys
        self.privateKeys = privateKeys
        anonymousPublicKeys = try JWKSet(keys: publicKeys.keys.map { key throws(JOSEError) in try key.withoutKid() })
        anonymousPrivateKeys = try JWKSet(keys: privateKeys.keys.map { key throws(JOSEError) in try key.withoutKid() })
    }

    /// `source` with its keys replaced by the stand-ins of the same kind.
    func standingIn(for source: KeySource) -> KeySource {
        let ownKeysAreSecret = source.localKeys?.keys.first?.isPrivate == true
        let selectsByKid = source.remote != nil || source.history != nil || source.localKeys?.selectsByKid == true
        let candidates = switch (source.purpose == .verification && !ownKeysAreSecret, selectsByKid) {
        case (true, true): publicKeys
        case (true, false): anonymousPublicKeys
        case (false, true): privateKeys
        case (false, false): anonymousPrivateKeys
        }
        var keys = candidates
        if let own = source.localKeys?.keys {
            let kinds = Set(own.map(\.standInKind))
            if let alike = try? JWKSet(keys: candidates.keys.filter { kinds.contains($0.standInKind) }), !alike.keys.isEmpty { keys = alike }
        }
        return KeySource(origin: .local(keys), purpose: source.purpose, description: "test keys standing in for \(source.description)",
                         requireKid: source.requireKid, keyOptions: source.keyOptions)
    }
}

extension JWK {
    /// The family and curve of the key, or the length of a secret: what a stand-in must share.
    var standInKind: String {
        switch material {
        case let .asymmetric(.rsa(key)): "RSA \(key.isPrivate)"
        case let .asymmetric(.ec(key)): "EC \(key.curve.rawValue) \(key.isPrivate)"
        case let .asymmetric(.okp(key)): "OKP \(key.curve.rawValue) \(key.isPrivate)"
        case let .secret(bytes): "oct \(bytes.count)"
        }
    }

    /// The same key without its `kid`.
    func withoutKid() throws(JOSEError) -> JWK {
        switch material {
        case let .asymmetric(key): try JWK(key: key, use: use)
        case let .secret(bytes): JWK(secret: bytes)
        }
    }
}
