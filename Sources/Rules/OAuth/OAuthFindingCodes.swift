@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the callback and PKCE rules.
extension FindingCode {
    /// The callback is not a URL, or its parameters are not valid form encoding.
    package static let callbackMalformed = FindingCode("callback_malformed", .undecided)
    /// The authorization server answered with `error`; the finding carries it and `error_description`.
    package static let callbackError = FindingCode("callback_error", .mismatch)
    /// No `code`, or an empty one.
    package static let codeMissing = FindingCode("code_missing", .absent)
    /// No `state`, or an empty one.
    package static let stateMissing = FindingCode("state_missing", .absent)
    /// `state` is not the one the client sent.
    package static let stateMismatch = FindingCode("state_mismatch", .mismatch)
    /// The callback did not arrive at the registered redirect URI (scheme, host, port, path).
    package static let redirectURIMismatch = FindingCode("redirect_uri_mismatch", .mismatch)
    /// `require_issuer` and the response has no RFC 9207 `iss`.
    package static let issuerMissing = FindingCode("issuer_missing", .absent)
    /// The client's `code_challenge_method` is not among the policy's `methods` (absent means `plain`).
    package static let pkceMethodNotAllowed = FindingCode("pkce_method_not_allowed", .mismatch)
    /// The verifier is not 43–128 characters of `[A-Za-z0-9-._~]`.
    package static let pkceVerifierInvalid = FindingCode("pkce_verifier_invalid", .mismatch)
    /// The challenge is not the one the verifier makes.
    package static let pkceMismatch = FindingCode("pkce_mismatch", .mismatch)

    /// Every code of the callback and PKCE rules.
    package static let oauthCodes: [FindingCode] = [
        .callbackMalformed, .callbackError, .codeMissing, .stateMissing, .stateMismatch, .redirectURIMismatch,
        .issuerMissing, .pkceMethodNotAllowed, .pkceVerifierInvalid, .pkceMismatch,
    ]
}
