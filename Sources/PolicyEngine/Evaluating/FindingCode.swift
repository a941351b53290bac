/// The stable code of a failed check, as verdicts report it.
public enum FindingCode: String, Sendable, Codable, CaseIterable {
    // Batch records
    /// A log record that cannot be read: not UTF-8, binary, not a JSON object, over the line cap.
    case recordMalformed = "record_malformed"
    /// A JSON-lines record without its token field (or one that is not a string), or a
    /// mapped input field.
    case recordFieldMissing = "record_field_missing"
    /// A record's time field is neither unix seconds nor RFC 3339.
    case recordTimeInvalid = "record_time_invalid"
    // Structure
    case malformedToken = "malformed_token"
    case tokenTooLarge = "token_too_large"
    case tokenTooDeep = "token_too_deep"
    // Header
    case algNotAllowed = "alg_not_allowed"
    case typNotAllowed = "typ_not_allowed"
    case critUnsupported = "crit_unsupported"
    /// The header asks for processing that is refused: `zip` (compression), `b64: false`.
    case headerUnsupported = "header_unsupported"
    case headerMismatch = "header_mismatch"
    // Keys and signature
    case kidUnknown = "kid_unknown"
    case kidMissing = "kid_missing"
    case keyUnavailable = "key_unavailable"
    /// A token's `x5c` chain does not verify to the policy's `x5c` trust anchor, or its leaf may not sign.
    case certificateUntrusted = "certificate_untrusted"
    case signatureInvalid = "signature_invalid"
    /// A JWE (`format: jwe` or `nested`) that no policy key decrypts and authenticates.
    case decryptionFailed = "decryption_failed"
    // Registered claims
    case issuerMismatch = "issuer_mismatch"
    case audienceMismatch = "audience_mismatch"
    case audienceUntrusted = "audience_untrusted"
    case azpMissing = "azp_missing"
    case azpMismatch = "azp_mismatch"
    case subjectMismatch = "subject_mismatch"
    case nonceMismatch = "nonce_mismatch"
    // Times
    case tokenExpired = "token_expired"
    case tokenNotYetValid = "token_not_yet_valid"
    case iatInFuture = "iat_in_future"
    case tokenTooOld = "token_too_old"
    case lifetimeTooLong = "lifetime_too_long"
    // Hashes
    case cHashMismatch = "c_hash_mismatch"
    case atHashMismatch = "at_hash_mismatch"
    // Claims
    case claimMissing = "claim_missing"
    case claimType = "claim_type"
    case claimMismatch = "claim_mismatch"
    // Composition
    case notSatisfied = "not_satisfied"
    /// An input value of the wrong type for the rule that reads it.
    case inputInvalid = "input_invalid"
    /// A failure reported by a custom (`x-`) rule.
    case customRuleFailed = "custom_rule_failed"
    // Requests
    /// The request document is not `{method, url, headers, body}` with the right types.
    case requestMalformed = "request_malformed"
    /// The request URL is not an http(s) URL or origin-form target, or does not decode.
    case urlInvalid = "url_invalid"
    /// A header name is not a token, or a value holds control or non-ASCII bytes.
    case headerInvalid = "header_invalid"
    /// The request (or its body) exceeds the size cap.
    case bodyTooLarge = "body_too_large"
    /// The body is declared or needed as JSON and is not JSON.
    case bodyNotJSON = "body_not_json"
    case methodNotAllowed = "method_not_allowed"
    case pathMismatch = "path_mismatch"
    case queryMismatch = "query_mismatch"
    /// A body field does not match its matcher.
    case bodyMismatch = "body_mismatch"
    /// A body field the policy names is absent.
    case fieldMissing = "field_missing"
    /// `bearer` and the request carries no single `Authorization: Bearer` token.
    case bearerMissing = "bearer_missing"
    /// The bearer token fails the policy `bearer` names; its findings are nested.
    case bearerInvalid = "bearer_invalid"
    /// A field listed in `encrypted_fields` is not a well-formed compact JWE.
    case fieldNotEncrypted = "field_not_encrypted"
    /// An encrypted field uses a JWE `alg` or `enc` the policy does not allow (RSA1_5 included).
    case encryptionNotAllowed = "encryption_not_allowed"
    // Callbacks (authorization responses)
    /// The callback is not a URL, or its parameters are not valid form encoding.
    case callbackMalformed = "callback_malformed"
    /// A parameter appears more than once (a callback's, or a request's query).
    case parameterRepeated = "parameter_repeated"
    /// The authorization server answered with `error`; the finding carries it and `error_description`.
    case callbackError = "callback_error"
    /// No `code`, or an empty one.
    case codeMissing = "code_missing"
    /// No `state`, or an empty one.
    case stateMissing = "state_missing"
    case stateMismatch = "state_mismatch"
    /// The callback did not arrive at the registered redirect URI (scheme, host, port, path).
    case redirectURIMismatch = "redirect_uri_mismatch"
    /// `require_issuer` and the response has no RFC 9207 `iss`.
    case issuerMissing = "issuer_missing"
    // PKCE (RFC 7636)
    /// The client's `code_challenge_method` is not among the policy's `methods` (absent means `plain`).
    case pkceMethodNotAllowed = "pkce_method_not_allowed"
    /// The verifier is not 43–128 characters of `[A-Za-z0-9-._~]`.
    case pkceVerifierInvalid = "pkce_verifier_invalid"
    /// The challenge is not the one the verifier makes.
    case pkceMismatch = "pkce_mismatch"
}

extension FindingCode {
    /// Whether the finding says the subject could not be judged (malformed, too large, of the
    /// wrong type, keys out of reach) rather than that it was judged and did not match.
    ///
    /// Such a failure is never turned into a pass: under `not`, or as a `when` condition, it
    /// stays a failure (`not: {path: {prefix: /admin}}` must not let an undecodable path through).
    public var meansUndecided: Bool {
        switch self {
        case .recordMalformed, .recordFieldMissing, .recordTimeInvalid, .malformedToken, .tokenTooLarge, .tokenTooDeep,
             .headerUnsupported, .keyUnavailable, .claimType, .inputInvalid, .requestMalformed, .urlInvalid, .headerInvalid,
             .bodyTooLarge, .bodyNotJSON, .callbackMalformed, .parameterRepeated:
            true
        default:
            false
        }
    }
}
