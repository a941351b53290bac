@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// A request's `DPoP` proof (RFC 9449 §4.2), read once when the request is decoded: its JWS,
/// the public key its header carries and that key's RFC 7638 thumbprint, and the claims the
/// `dpop` rules compare. Reading checks only the proof's form; the rules check its signature,
/// algorithm, times and what it is bound to.
package struct DPoPProof: Sendable {
    /// The proof as signed.
    package let jws: CompactJWS
    /// The public key of the header's `jwk`, which the signature must verify with.
    package let key: JWK
    /// The key's RFC 7638 thumbprint, which a bound token's `cnf.jkt` names.
    package let thumbprint: String
    /// `jti`: the proof's unique identifier.
    package let jti: String
    /// `htm`: the method of the request the proof was made for.
    package let htm: String
    /// `htu`: the URL of the request the proof was made for, without query and fragment.
    package let htu: String
    /// `iat`, in seconds since the epoch.
    package let issuedAt: Double
    /// `ath`: the base64url SHA-256 of the access token, when the proof comes with one.
    package let ath: String?
    /// `nonce`: the server nonce, when the client was given one.
    package let nonce: String?

    /// Why a proof cannot be read, with the code it is reported as.
    package struct Problem: Error, Sendable, Equatable {
        package let code: FindingCode
        package let message: String
    }

    /// The largest proof read: a proof carries one public key, so an RSA-4096 proof is under
    /// 2 KiB; the bound keeps a hostile header from costing more.
    package static let limits = TokenLimits(maxTokenBytes: 8 * 1024, maxJSONDepth: 8, maxLayers: 1)

    /// The members of a JWK that hold private or secret key material (RFC 7518 §6).
    private static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Reads the proof of `values`, every `DPoP` header of a request; nil when there is none.
    package static func read(_ values: [String]) -> Result<DPoPProof, Problem>? {
        guard let value = values.first else { return nil }
        guard values.count == 1 else {
            return .failure(Problem(code: .dpopProofMalformed, message: "the request has \(values.count) DPoP headers; RFC 9449 §4.3 allows exactly one"))
        }
        return Result { () throws(Problem) in try DPoPProof(value) }
    }

    private init(_ text: String) throws(Problem) {
        func malformed(_ message: String) -> Problem { Problem(code: .dpopProofMalformed, message: message) }
        do {
            jws = try CompactJWS(text, limits: Self.limits)
        } catch where [.algNone, .unsupportedAlgorithm].contains(error.code) {
            throw Problem(code: .dpopAlgNotAllowed, message: "the DPoP proof's \(error.message)")
        } catch {
            throw malformed("the DPoP proof is not a compact JWS: \(error.message)")
        }
        let header = jws.header
        guard let type = header.type, JOSEHeader.normalizedMediaType(type) == "dpop+jwt" else {
            throw Problem(code: .dpopTypInvalid, message: header.type.map { "the DPoP proof's typ is '\($0)', not 'dpop+jwt'" } ?? "the DPoP proof has no typ; it must be 'dpop+jwt'")
        }
        guard !jws.algorithm.isSymmetric else {
            throw Problem(code: .dpopAlgNotAllowed, message: "the DPoP proof is signed with \(jws.algorithm.rawValue): a proof is signed with the client's key pair, never a shared secret")
        }
        if let critical = header.critical.first {
            throw malformed("the DPoP proof marks '\(critical)' critical, which is not understood")
        }
        guard let jwk = header.object["jwk"] else {
            throw Problem(code: .dpopKeyInvalid, message: "the DPoP proof's header has no jwk: the public key it is signed with")
        }
        guard let members = jwk.objectValue else {
            throw Problem(code: .dpopKeyInvalid, message: "the DPoP proof's jwk is \(jwk.typeName), not a JWK object")
        }
        if let secret = Self.privateMembers.first(where: { members[$0] != nil }) {
            throw Problem(code: .dpopKeyInvalid, message: "the DPoP proof's jwk carries private key material ('\(secret)'); a proof carries the public key only")
        }
        do {
            key = try JWK(object: members)
            thumbprint = try key.thumbprint()
        } catch {
            throw Problem(code: .dpopKeyInvalid, message: "the DPoP proof's jwk is not a usable public key: \(error.message)")
        }
        let claims: JSONObject
        do {
            claims = try CompactJWS.claimsSet(jws.payload, limits: Self.limits, what: "the DPoP proof's payload")
        } catch {
            throw malformed(error.message)
        }
        func string(_ name: String, required: Bool) throws(Problem) -> String? {
            switch claims[name] {
            case nil where required: throw malformed("the DPoP proof has no '\(name)'")
            case nil: return nil
            case let .string(text)? where !text.isEmpty || !required: return text
            case .string?: throw malformed("the DPoP proof's '\(name)' is empty")
            case let other?: throw malformed("the DPoP proof's '\(name)' is \(other.typeName), not a string")
            }
        }
        jti = try string("jti", required: true)!
        htm = try string("htm", required: true)!
        htu = try string("htu", required: true)!
        ath = try string("ath", required: false)
        nonce = try string("nonce", required: false)
        switch TokenClaims.numericDate(RegisteredClaim.iat, in: JSONObjectView(claims)) {
        case .absent: throw malformed("the DPoP proof has no 'iat'")
        case let .unusable(reason): throw malformed("the DPoP proof's \(reason)")
        case let .seconds(seconds): issuedAt = seconds
        }
    }

    /// `ath` for `token`: the base64url SHA-256 of its ASCII bytes (RFC 9449 §4.2).
    package static func accessTokenHash(_ token: String) -> String {
        Base64URL.sha256(Array(token.utf8))
    }
}
