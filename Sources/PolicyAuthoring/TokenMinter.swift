@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// Mints the token a test case describes, packaged as its policy expects: a JWS signed with the
/// test key of the algorithm, a JWE of the claims, or a JWS inside a JWE.
///
/// The header starts as `{alg, kid, typ: "JWT"}`; the case's `header` overrides any member, and
/// a member set to `null` is left out (a token without `kid`). An `alg` the engine does not sign
/// with (`none`, `HS1`) yields a token with an empty signature, so a case can show it refused.
package struct TokenMinter: Sendable {
    /// The keys that stand in for the policy's.
    package let keyring: TestKeyring

    /// A minter signing with `keyring`.
    package init(keyring: TestKeyring) {
        self.keyring = keyring
    }

    /// The compact token for `token` under `policy`'s format and algorithms, with its embedded
    /// tokens minted first for the policies `embedded_tokens` names and placed in their claims.
    ///
    /// - Throws: `JOSEError` when the policy allows no algorithm to mint with, a key cannot sign
    ///   or encrypt, or an embedded token's claim is not one the policy checks a token in.
    package func mint(_ token: MintedToken, for policy: Policy) throws(JOSEError) -> String {
        var claims = token.claims
        for path in token.embedded.keys.sorted() {
            guard let claim = ClaimPath(parsing: path), let inner = policy.embeddedPolicy(at: claim) else {
                throw JOSEError(.malformedToken, "policy \(policy.name) checks no token in claim '\(path)' (embedded_tokens)")
            }
            let minted = try mint(token.embedded[path]!, for: inner)
            claims = claims.setting(claim.segments[...], to: .string(minted))
        }
        return try mint(claims: claims, header: token.header, corruptSignature: token.corruptSignature, for: policy)
    }

    /// The compact token for `claims` and `header` under `policy`'s format and algorithms.
    ///
    /// - Throws: `JOSEError` when the policy allows no algorithm to mint with, or a key cannot
    ///   sign or encrypt.
    package func mint(claims: JSONObject, header: JSONObject, corruptSignature: Bool = false, for policy: Policy) throws(JOSEError) -> String {
        let payload = JSONValue.object(claims).serializedBytes()
        switch policy.envelope.format {
        case .jws:
            let token = try signed(payload, header: header, algorithms: policy.algorithms)
            return corruptSignature ? Self.flippingLastPart(token) : token
        case .jwe:
            let token = try encrypted(payload, header: header, contentType: nil, policy: policy)
            return corruptSignature ? Self.flippingLastPart(token) : token
        case .nested:
            let inner = try signed(payload, header: header, algorithms: policy.algorithms)
            return try encrypted(Array((corruptSignature ? Self.flippingLastPart(inner) : inner).utf8), header: JSONObject(), contentType: "JWT", policy: policy)
        }
    }

    /// `token` with one bit of its last part (a JWS signature, a JWE tag) flipped.
    static func flippingLastPart(_ token: String) -> String {
        guard let dot = token.lastIndex(of: "."), var bytes = try? Base64URL.decode(token[token.index(after: dot)...]), !bytes.isEmpty else {
            return token + "A"
        }
        bytes[0] ^= 0x01
        return String(token[...dot]) + Base64URL.encode(bytes)
    }

    private func signed(_ payload: [UInt8], header extra: JSONObject, algorithms: [JWSAlgorithm]) throws(JOSEError) -> String {
        let algorithmName: String
        if let named = extra["alg"] {
            guard let name = named.stringValue else { throw JOSEError(.malformedToken, "the case's header alg must be a string") }
            algorithmName = name
        } else {
            guard let first = algorithms.first else {
                throw JOSEError(.unsupportedAlgorithm, "the policy allows no signature algorithm to mint a token with")
            }
            algorithmName = first.rawValue
        }
        let algorithm = JWSAlgorithm.exactly(algorithmName)
        var header = JSONObject(["alg": .string(algorithmName), "typ": .string("JWT")])
        if let algorithm, let kid = keyring.signingKey(for: algorithm).kid { header.set("kid", .string(kid)) }
        for member in extra.members { header.set(member.name, member.value) }
        header = header.withoutNulls
        guard let algorithm else {
            let signingInput = Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + Base64URL.encode(payload)
            return signingInput + "."
        }
        return try CompactJWS.sign(payload: payload, header: header, algorithm: algorithm, key: keyring.signingKey(for: algorithm))
    }

    private func encrypted(_ plaintext: [UInt8], header: JSONObject, contentType: String?, policy: Policy) throws(JOSEError) -> String {
        guard let decryption = policy.envelope.decryption, let algorithm = decryption.keyAlgorithms.first,
              let encryption = decryption.contentEncryptions.first else {
            throw JOSEError(.unsupportedAlgorithm, "the policy names no JWE algorithm to mint a token with")
        }
        // The key the policy's decryption stands in with (its family and curve), so the policy
        // can decrypt what is minted.
        guard let recipient = decryption.keys.localKeys?.keys.first(where: {
            $0.encryptionRestriction(for: algorithm, contentEncryption: encryption, decrypting: true) == nil
        }) else {
            throw JOSEError(.keyNotFound, "no test key stands in for the policy's decryption key with \(algorithm.rawValue)")
        }
        var extra = contentType.map { JSONObject(["cty": .string($0)]) } ?? JSONObject()
        for member in header.members { extra.set(member.name, member.value) }
        return try CompactJWE.encrypt(plaintext, to: recipient.publicKey, keyAlgorithm: algorithm, contentEncryption: encryption, header: extra)
    }
}
