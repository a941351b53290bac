@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the `dpop` rules (RFC 9449): one for each way a proof or its binding is
/// refused, so a verdict says which.
extension FindingCode {
    /// No `DPoP` proof where the policy requires one, or a DPoP-bound token sent as a bearer token.
    package static let dpopProofMissing = FindingCode("dpop_proof_missing", .absent)
    /// The proof is not one compact JWS with `jti`, `htm`, `htu` and `iat` (two `DPoP` headers,
    /// bad base64url or JSON, a claim missing or of the wrong type, a critical header).
    package static let dpopProofMalformed = FindingCode("dpop_proof_malformed", .undecided)
    /// The proof's `typ` is not `dpop+jwt`.
    package static let dpopTypInvalid = FindingCode("dpop_typ_invalid", .mismatch)
    /// The proof's `alg` is not among the policy's asymmetric algorithms (`none` and HMAC never are).
    package static let dpopAlgNotAllowed = FindingCode("dpop_alg_not_allowed", .mismatch)
    /// The proof's `jwk` is missing, carries private key material, or is not a public key for its `alg`.
    package static let dpopKeyInvalid = FindingCode("dpop_key_invalid", .mismatch)
    /// The proof's signature does not verify with its own `jwk`.
    package static let dpopSignatureInvalid = FindingCode("dpop_signature_invalid", .mismatch)
    /// The proof's `htm` is not the request's method.
    package static let dpopMethodMismatch = FindingCode("dpop_htm_mismatch", .mismatch)
    /// The proof's `htu` is not the request's URL (or has a query or fragment).
    package static let dpopURLMismatch = FindingCode("dpop_htu_mismatch", .mismatch)
    /// The proof was issued longer ago than `max_age` (and leeway) allows.
    package static let dpopProofTooOld = FindingCode("dpop_proof_too_old", .mismatch)
    /// The proof's `iat` is in the future beyond the leeway.
    package static let dpopIssuedInFuture = FindingCode("dpop_iat_in_future", .mismatch)
    /// The proof's `jti` was used before within the proof's lifetime.
    package static let dpopProofReplayed = FindingCode("dpop_proof_replayed", .mismatch)
    /// The proof has no `ath`, and the request presents an access token.
    package static let dpopAccessTokenHashMissing = FindingCode("dpop_ath_missing", .absent)
    /// The proof's `ath` is not the hash of the access token presented.
    package static let dpopAccessTokenHashMismatch = FindingCode("dpop_ath_mismatch", .mismatch)
    /// The access token names no key it is bound to (`cnf.jkt`), yet is presented with DPoP.
    package static let dpopTokenUnbound = FindingCode("dpop_token_unbound", .absent)
    /// The access token's `cnf.jkt` is not the thumbprint of the proof's key.
    package static let dpopBindingMismatch = FindingCode("dpop_binding_mismatch", .mismatch)
    /// The proof carries no server nonce, or not the one the server expects (RFC 9449 §8,
    /// `use_dpop_nonce`); the answer gives the client the nonce to use.
    package static let useDPoPNonce = FindingCode("use_dpop_nonce", .mismatch)

    /// Every code of the `dpop` rules.
    package static let dpopCodes: [FindingCode] = [
        .dpopProofMissing, .dpopProofMalformed, .dpopTypInvalid, .dpopAlgNotAllowed, .dpopKeyInvalid, .dpopSignatureInvalid,
        .dpopMethodMismatch, .dpopURLMismatch, .dpopProofTooOld, .dpopIssuedInFuture, .dpopProofReplayed,
        .dpopAccessTokenHashMissing, .dpopAccessTokenHashMismatch, .dpopTokenUnbound, .dpopBindingMismatch, .useDPoPNonce,
    ]
}
