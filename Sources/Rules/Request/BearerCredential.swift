/// The token of an `Authorization: Bearer` header (RFC 6750 §2.1), read one way by everything
/// that reads one: forward auth, the Hummingbird middleware and the `bearer` rule.
///
/// The grammar is `"Bearer" 1*SP b64token`, the scheme compared as ASCII in any case (RFC 9110
/// §11.1); exactly one `Authorization` header may carry it.
package enum BearerCredential {
    /// Why a request carries no usable bearer token.
    package enum Problem: Error, Sendable, Equatable {
        /// No `Authorization` header.
        case absent
        /// More than one `Authorization` header (their number).
        case repeated(Int)
        /// An `Authorization` header of another scheme (`Basic`, `DPoP`, ...).
        case otherScheme
        /// `Bearer` without a token of `b64token` syntax.
        case malformed

        /// A stable code for counting and logging the problem: `credential_missing`,
        /// `header_repeated`, `credential_unsupported` (another scheme, such as `Basic`) or
        /// `bearer_malformed`. It names the case only, never what the header held.
        package var code: String {
            switch self {
            case .absent: "credential_missing"
            case .repeated: "header_repeated"
            case .otherScheme: "credential_unsupported"
            case .malformed: "bearer_malformed"
            }
        }

        /// Why, in words a finding or an HTTP answer can carry.
        package var message: String {
            switch self {
            case .absent: "the request has no Authorization header"
            case let .repeated(count): "the request has \(count) Authorization headers"
            case .otherScheme: "the Authorization header is not 'Bearer <token>'"
            case .malformed: "the bearer token is not a b64token (RFC 6750 §2.1)"
            }
        }
    }

    /// Whether `byte` is an RFC 6750 `b64token` character other than the trailing `=`: compared
    /// by range, as a token is hundreds of bytes on every request.
    private static func isB64TokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    /// The token of `values`, every `Authorization` header of a request in order.
    package static func token(in values: [String]) -> Result<String, Problem> {
        guard let value = values.first else { return .failure(.absent) }
        guard values.count == 1 else { return .failure(.repeated(values.count)) }
        let bytes = value.utf8
        let schemeEnd = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
        guard bytes.distance(from: bytes.startIndex, to: schemeEnd) == 6, zip(bytes[..<schemeEnd], "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else {
            return .failure(.otherScheme)
        }
        let token = bytes[schemeEnd...].drop { $0 == UInt8(ascii: " ") }
        var body = token[...]
        while body.last == UInt8(ascii: "=") { body.removeLast() }
        let characters = body.withContiguousStorageIfAvailable { $0.allSatisfy(isB64TokenCharacter) } ?? body.allSatisfy(isB64TokenCharacter)
        guard !body.isEmpty, characters else { return .failure(.malformed) }
        return .success(String(Substring(token)))
    }
}
