@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE
internal import PolicyCrypto
import Rules

/// Makes DPoP proofs (RFC 9449 §4.2) as a client does: `typ: dpop+jwt`, the public key in
/// `jwk`, and `jti`, `htm`, `htu`, `iat`, `ath` and `nonce` in the claims. The test runner
/// mints with it; a case's `header` and `claims` replace members to make the variants a policy
/// must refuse.
package struct DPoPProofMinter: Sendable {
    /// The client's private key.
    package let key: JWK
    /// The algorithm the proof is signed with.
    package let algorithm: JWSAlgorithm

    /// A minter signing with `key` under `algorithm`.
    package init(key: JWK, algorithm: JWSAlgorithm) {
        self.key = key
        self.algorithm = algorithm
    }

    /// The RFC 7638 thumbprint of the key: the `cnf.jkt` of a token bound to it.
    package func thumbprint() throws(JOSEError) -> String {
        try key.thumbprint()
    }

    /// A proof for a `method` request to `url` (its query and fragment cut off for `htu`),
    /// issued at `issuedAt`, with `ath` of `accessToken` when there is one.
    ///
    /// - Parameters:
    ///   - header: Members replacing the header's (`typ`, `alg`, `jwk`); null leaves one out.
    ///   - claims: Members replacing the claims; null leaves one out.
    /// - Throws: `JOSEError` when the key cannot sign with the algorithm.
    package func proof(method: String, url: String, accessToken: String?, issuedAt: UnixTime, jti: String = Base64URL.encode(SecureRandom.bytes(16)),
                       nonce: String? = nil, header: JSONObject = JSONObject(), claims: JSONObject = JSONObject()) throws(JOSEError) -> String {
        let htu = String(url.prefix { $0 != "?" && $0 != "#" })
        var payload = JSONObject(["jti": .string(jti), "htm": .string(method), "htu": .string(htu),
                                  "iat": .number(.integer(Int64(issuedAt.seconds.rounded(.down))))])
        if let accessToken { payload.set("ath", .string(DPoPProof.accessTokenHash(accessToken))) }
        if let nonce { payload.set("nonce", .string(nonce)) }
        for member in claims.members { payload.set(member.name, member.value) }
        var fullHeader = JSONObject(["typ": .string("dpop+jwt"), "alg": .string(algorithm.rawValue)])
        // A secret has no public form: an HMAC proof (which policies refuse) carries no jwk.
        if key.type != .oct { fullHeader.set("jwk", .object(try key.publicKey.requiredMembers())) }
        for member in header.members { fullHeader.set(member.name, member.value) }
        let bytes = JSONValue.object(payload.withoutNulls).serializedBytes()
        guard fullHeader["alg"] == .string(algorithm.rawValue) else {
            // Another alg than the key signs (`none`): an unsigned proof, for a case to show it refused.
            return Base64URL.encode(JSONValue.object(fullHeader.withoutNulls).serializedBytes()) + "." + Base64URL.encode(bytes) + "."
        }
        return try CompactJWS.sign(payload: bytes, header: fullHeader.withoutNulls, algorithm: algorithm, key: key)
    }
}
