@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of the request rules.
extension FindingCode {
    /// The request document is not `{method, url, headers, body}` with the right types.
    package static let requestMalformed = FindingCode("request_malformed", .undecided)
    /// The request URL is not an http(s) URL or origin-form target, or does not decode.
    package static let urlInvalid = FindingCode("url_invalid", .undecided)
    /// A header name is not a token, or a value holds control or non-ASCII bytes.
    package static let headerInvalid = FindingCode("header_invalid", .undecided)
    /// The request (or its body) exceeds the size cap.
    package static let bodyTooLarge = FindingCode("body_too_large", .undecided)
    /// The body is declared or needed as JSON and is not JSON.
    package static let bodyNotJSON = FindingCode("body_not_json", .undecided)
    /// The request method is not one the policy allows.
    package static let methodNotAllowed = FindingCode("method_not_allowed", .mismatch)
    /// The normalised path does not match.
    package static let pathMismatch = FindingCode("path_mismatch", .mismatch)
    /// A query parameter does not match its matcher.
    package static let queryMismatch = FindingCode("query_mismatch", .mismatch)
    /// A body field does not match its matcher.
    package static let bodyMismatch = FindingCode("body_mismatch", .mismatch)
    /// A body field the policy names is absent.
    package static let fieldMissing = FindingCode("field_missing", .absent)
    /// `bearer` and the request carries no single `Authorization: Bearer` token.
    package static let bearerMissing = FindingCode("bearer_missing", .absent)
    /// The bearer token fails the policy `bearer` names; its findings are nested.
    package static let bearerInvalid = FindingCode("bearer_invalid", .mismatch)
    /// A parameter appears more than once (a callback's, or a request's query).
    package static let parameterRepeated = FindingCode("parameter_repeated", .undecided)
    /// The path holds `;` (a path parameter) and `path_normalization.path_parameters` is `reject`.
    package static let pathParameter = FindingCode("path_parameter", .undecided)

    /// `certificate_binding` and the request has no client certificate header.
    package static let clientCertificateMissing = FindingCode("client_certificate_missing", .absent)
    /// The client certificate header is repeated or holds no readable certificate.
    package static let clientCertificateMalformed = FindingCode("client_certificate_malformed", .undecided)
    /// The token names no certificate it is bound to (`cnf.x5t#S256`).
    package static let certificateBindingMissing = FindingCode("certificate_binding_missing", .absent)
    /// The token's `cnf.x5t#S256` is not the client certificate's thumbprint.
    package static let certificateBindingMismatch = FindingCode("certificate_binding_mismatch", .mismatch)

    /// Every code of the request rules.
    package static let requestCodes: [FindingCode] = [
        .requestMalformed, .urlInvalid, .headerInvalid, .bodyTooLarge, .bodyNotJSON, .methodNotAllowed,
        .pathMismatch, .queryMismatch, .bodyMismatch, .fieldMissing, .bearerMissing, .bearerInvalid,
        .parameterRepeated, .pathParameter, .clientCertificateMissing, .clientCertificateMalformed, .certificateBindingMissing,
        .certificateBindingMismatch,
    ]
}
