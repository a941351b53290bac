@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of decoding, verifying and decrypting a token.
extension FindingCode {
    /// The token is not a well-formed compact JWS or JWE, or its payload is not a JWT claims set.
    public static let malformedToken = FindingCode("malformed_token", .undecided)
    /// The token exceeds `max_token_bytes`.
    public static let tokenTooLarge = FindingCode("token_too_large", .undecided)
    /// The header or claims nest deeper than `max_json_depth`.
    public static let tokenTooDeep = FindingCode("token_too_deep", .undecided)
    /// The header's `alg` (or a JWE's `alg` / `enc`) is not one the policy allows; `none` never is.
    public static let algNotAllowed = FindingCode("alg_not_allowed", .mismatch)
    /// The header marks an extension critical (`crit`) that the policy does not understand.
    public static let critUnsupported = FindingCode("crit_unsupported", .mismatch)
    /// The header asks for processing that is refused: `zip` (compression), `b64: false`.
    public static let headerUnsupported = FindingCode("header_unsupported", .undecided)
    /// No key of the policy's set has the token's `kid`.
    public static let kidUnknown = FindingCode("kid_unknown", .mismatch)
    /// The token's `kid` names a key of the source's history first published after the evaluation time.
    public static let keyPublishedLater = FindingCode("key_published_later", .mismatch)
    /// The evaluation time is before the oldest snapshot of the source's key history: which keys
    /// counted then is not known.
    public static let keysBeforeHistory = FindingCode("keys_before_history", .undecided)
    /// The key set selects by `kid` and requires one, and the token has none.
    public static let kidMissing = FindingCode("kid_missing", .absent)
    /// The policy's keys cannot be had (a source down with nothing cached), or none can serve the token's algorithm.
    public static let keyUnavailable = FindingCode("key_unavailable", .undecided)
    /// A token's `x5c` chain does not verify to the policy's `x5c` trust anchor, or its leaf may not sign.
    public static let certificateUntrusted = FindingCode("certificate_untrusted", .mismatch)
    /// No allowed key verifies the signature.
    public static let signatureInvalid = FindingCode("signature_invalid", .mismatch)
    /// The policy's `outer_layers` requires the token to be wrapped in a signed token, and it is not.
    public static let layerMissing = FindingCode("layer_missing", .absent)
    /// The policy's `signatures: N` requires N signatures by distinct keys, and fewer hold.
    public static let tooFewSignatures = FindingCode("too_few_signatures", .absent)
    /// A JWE (`format: jwe` or `nested`) that no policy key decrypts and authenticates.
    public static let decryptionFailed = FindingCode("decryption_failed", .mismatch)

    /// Every code of decoding, verifying and decrypting a token.
    public static let tokenHandlingCodes: [FindingCode] = [
        .malformedToken, .tokenTooLarge, .tokenTooDeep, .algNotAllowed, .critUnsupported, .headerUnsupported,
        .kidUnknown, .keyPublishedLater, .keysBeforeHistory, .kidMissing, .keyUnavailable, .certificateUntrusted, .signatureInvalid, .layerMissing, .tooFewSignatures, .decryptionFailed,
    ]
}
