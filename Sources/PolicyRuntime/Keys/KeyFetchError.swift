/// Why a remote key set could not be fetched or used; the message names the URL involved.
public struct KeyFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable kind of fetch failure.
    public enum Code: String, Sendable {
        /// Plain `http://` without `allow_http` or to a host that is not loopback, a redirect
        /// leaving https, or not a URL at all.
        case insecureURL = "insecure_url"
        /// A URL whose host is, or resolves to, a link-local address, a cloud metadata service or
        /// the unspecified address, without `allow_internal` (`KeyURLAccess`).
        case refusedAddress = "refused_address"
        /// No complete answer within the source's timeout.
        case timeout
        /// The connection failed: refused, reset, DNS.
        case transport
        /// Any status but 200.
        case httpStatus = "http_status"
        /// The answer is not declared as JSON.
        case contentType = "content_type"
        /// The body exceeded the cap and was cut off.
        case tooLarge = "too_large"
        /// The body is not the JSON document expected (a JWKS, a discovery document).
        case invalidDocument = "invalid_document"
        /// A discovery document names an issuer other than the one configured.
        case issuerMismatch = "issuer_mismatch"
        /// The JWKS parsed but none of its keys is usable.
        case noUsableKey = "no_usable_key"
    }

    /// The stable kind of failure.
    public let code: Code
    /// What happened, naming the URL.
    public let message: String

    /// A failure of `code`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
