@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules

/// A case's `dpop` applied to its request: the proof minted with a stand-in client key (the
/// test keyring's key for the proof's algorithm, or its second P-256 key for `key: other`) and
/// put in the `DPoP` header, and the case's token in `Authorization`.
struct DPoPCaseProof {
    let proof: MintedProof
    let keyring: TestKeyring
    let policy: Policy

    /// The proof's algorithm: the case's header `alg`, else the first the policy's `dpop`
    /// allows (ES256 for a policy without one).
    private var algorithm: JWSAlgorithm {
        proof.header["alg"]?.stringValue.flatMap(JWSAlgorithm.exactly) ?? DPoPRequirement(policy)?.algorithms.first ?? .es256
    }

    /// The minter of the key the token is bound to.
    var client: DPoPProofMinter { DPoPProofMinter(key: keyring.signingKey(for: algorithm), algorithm: algorithm) }

    /// `request` (JSON `{method, url, headers, body}`) with the proof in its `DPoP` header and
    /// `token` in its `Authorization` header, unless the case's request writes either itself.
    ///
    /// - Throws: `JOSEError` when the request has no string method or URL, or the key cannot sign.
    func request(_ bytes: [UInt8], token: String?, now: Double) throws(JOSEError) -> [UInt8] {
        var request = try JSONParser().parseObject(bytes, what: "the case's request")
        guard let method = request["method"]?.stringValue, let url = request["url"]?.stringValue else {
            throw JOSEError(.malformedToken, "a case with 'dpop' needs a request with a method and a url to make the proof for")
        }
        if proof.otherKey, algorithm != .es256 {
            throw JOSEError(.unsupportedAlgorithm, "key: other signs ES256 only; this proof's alg is \(algorithm.rawValue)")
        }
        let minter = proof.otherKey ? DPoPProofMinter(key: keyring.otherClientKey, algorithm: .es256) : client
        var text = try minter.proof(method: method, url: url, accessToken: token, issuedAt: UnixTime(seconds: now), header: proof.header, claims: proof.claims)
        if proof.corruptSignature { text = TokenMinter.flippingLastPart(text) }
        var headers = request["headers"]?.objectValue ?? JSONObject()
        // A header the case writes is sent as written; one it writes as null is not sent.
        let written = Set(headers.names.map { $0.lowercased() })
        if !written.contains("dpop") { headers.set("DPoP", .string(text)) }
        if let token, !written.contains("authorization") { headers.set("Authorization", .string("\(proof.scheme) \(token)")) }
        request.set("headers", .object(headers.withoutNulls))
        return JSONValue.object(request).serializedBytes()
    }
}
