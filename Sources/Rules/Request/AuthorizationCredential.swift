/// The token of an `Authorization` header, `Bearer` (RFC 6750 §2.1) or `DPoP` (RFC 9449 §7.1),
/// read one way by everything that reads one: forward auth, the Hummingbird middleware, the
/// request rules and an evaluation that takes a request's token as the policy's.
///
/// The grammar is `scheme 1*SP b64token`, the scheme compared as ASCII in any case (RFC 9110
/// §11.1); exactly one `Authorization` header may carry it.
package struct AuthorizationCredential: Sendable, Equatable {
    /// How the token is presented.
    package enum Scheme: String, Sendable, Equatable {
        /// Whoever holds the token may use it.
        case bearer = "Bearer"
        /// The token is bound to a key, and each request carries a `DPoP` proof made with it.
        case dpop = "DPoP"
    }

    /// The scheme the header names.
    package let scheme: Scheme
    /// The token after it.
    package let token: String

    /// Why a request carries no usable credential.
    package enum Problem: Error, Sendable, Equatable {
        /// No `Authorization` header.
        case absent
        /// More than one `Authorization` header (their number).
        case repeated(Int)
        /// An `Authorization` header of another scheme (`Basic`, ...).
        case otherScheme
        /// `Bearer` or `DPoP` without a token of `b64token` syntax.
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
            case .otherScheme: "the Authorization header is neither 'Bearer <token>' nor 'DPoP <token>'"
            case .malformed: "the token of the Authorization header is not a b64token (RFC 6750 §2.1)"
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

    /// The credential of `values`, every `Authorization` header of a request in order.
    package static func read(_ values: [String]) -> Result<AuthorizationCredential, Problem> {
        guard let value = values.first else { return .failure(.absent) }
        guard values.count == 1 else { return .failure(.repeated(values.count)) }
        let bytes = value.utf8
        let schemeEnd = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
        let name = bytes[..<schemeEnd]
        func named(_ scheme: Scheme) -> Bool {
            name.count == scheme.rawValue.utf8.count && zip(name, scheme.rawValue.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
        }
        guard let scheme = named(.bearer) ? Scheme.bearer : named(.dpop) ? .dpop : nil else { return .failure(.otherScheme) }
        let token = bytes[schemeEnd...].drop { $0 == UInt8(ascii: " ") }
        var body = token[...]
        while body.last == UInt8(ascii: "=") { body.removeLast() }
        let characters = body.withContiguousStorageIfAvailable { $0.allSatisfy(isB64TokenCharacter) } ?? body.allSatisfy(isB64TokenCharacter)
        guard !body.isEmpty, characters else { return .failure(.malformed) }
        return .success(AuthorizationCredential(scheme: scheme, token: String(Substring(token))))
    }
}
