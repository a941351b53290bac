@_spi(RuleAuthoring) public import PolicyJOSE

/// Why a remote key set could not be fetched or used; the message names the URL involved.
public typealias KeyFetchError = CodedError<KeyFetchFailure>

/// The ways fetching or using a remote key set fails.
public enum KeyFetchFailure: ErrorDomain {}

extension CodedError.Code where Domain == KeyFetchFailure {
    /// Plain `http://` without `allow_http` or to a host that is not loopback, a redirect
    /// leaving https, or not a URL at all.
    public static var insecureURL: Self { Self("insecure_url") }
    /// A URL whose host is, or resolves to, a link-local address, a cloud metadata service or
    /// the unspecified address, without `allow_internal` (`KeyURLAccess`).
    public static var refusedAddress: Self { Self("refused_address") }
    /// No complete answer within the source's timeout.
    public static var timeout: Self { Self("timeout") }
    /// The connection failed: refused, reset, DNS.
    public static var transport: Self { Self("transport") }
    /// Any status but 200.
    public static var httpStatus: Self { Self("http_status") }
    /// The answer is not declared as JSON.
    public static var contentType: Self { Self("content_type") }
    /// The body exceeded the cap and was cut off.
    public static var tooLarge: Self { Self("too_large") }
    /// The body is not the JSON document expected (a JWKS, a discovery document).
    public static var invalidDocument: Self { Self("invalid_document") }
    /// A discovery document names an issuer other than the one configured.
    public static var issuerMismatch: Self { Self("issuer_mismatch") }
    /// The JWKS parsed but none of its keys is usable.
    public static var noUsableKey: Self { Self("no_usable_key") }
}
