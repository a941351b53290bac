/// The token of an `Authorization: Bearer` header (RFC 6750 §2.1), read one way by everything
/// that reads one: forward auth, the Hummingbird middleware and the `bearer` rule.
///
/// The grammar is `"Bearer" 1*SP b64token`, the scheme compared as ASCII in any case (RFC 9110
/// §11.1); exactly one `Authorization` header may carry it.
public enum BearerCredential {
    /// Why a request carries no usable bearer token.
    public enum Problem: Error, Sendable, Equatable {
        /// No `Authorization` header.
        case absent
        /// More than one `Authorization` header (their number).
        case repeated(Int)
        /// An `Authorization` header of another scheme (`Basic`, `DPoP`, ...).
        case otherScheme
        /// `Bearer` without a token of `b64token` syntax.
        case malformed

        /// Why, in words a finding or an HTTP answer can carry.
        public var message: String {
            switch self {
            case .absent: "the request has no Authorization header"
            case let .repeated(count): "the request has \(count) Authorization headers"
            case .otherScheme: "the Authorization header is not 'Bearer <token>'"
            case .malformed: "the bearer token is not a b64token (RFC 6750 §2.1)"
            }
        }
    }

    /// RFC 6750 `b64token` characters, before any trailing `=`.
    private static let b64tokenCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8)

    /// The token of `values`, every `Authorization` header of a request in order.
    public static func token(in values: [String]) -> Result<String, Problem> {
        guard let value = values.first else { return .failure(.absent) }
        guard values.count == 1 else { return .failure(.repeated(values.count)) }
        let bytes = Array(value.utf8)
        let schemeEnd = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.count
        guard schemeEnd == 6, zip(bytes[..<6], "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return .failure(.otherScheme) }
        let tokenStart = bytes[schemeEnd...].firstIndex { $0 != UInt8(ascii: " ") } ?? bytes.count
        let token = bytes[tokenStart...]
        let body = token.reversed().drop { $0 == UInt8(ascii: "=") }
        guard !body.isEmpty, body.allSatisfy({ b64tokenCharacters.contains($0) }) else { return .failure(.malformed) }
        return .success(String(decoding: token, as: UTF8.self))
    }
}
