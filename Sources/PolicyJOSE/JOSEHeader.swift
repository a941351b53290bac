/// The protected header of a JWS or JWE, with typed access to the parameters the engine reads.
///
/// `jku`, `x5u` and `jwk` are kept as data only: no code follows them to fetch or trust a key.
///
/// Its parameters are kept in one immutable object: a header is shared by the many tokens that
/// carry its text (`JOSEHeaderCache`) and copied into each decoded token, and a copy then retains
/// one reference rather than each of its strings, arrays and the object.
public struct JOSEHeader: Sendable, Equatable {
    private final class Parameters: Sendable {
        let object: JSONObject
        let algorithmName: String
        let critical: [String]
        let holdsJWT: Bool
        let kid: String?
        let signatureAlgorithm: JWSAlgorithm?
        let encodesPayload: Bool

        init(object: JSONObject, algorithmName: String, critical: [String], holdsJWT: Bool) {
            self.object = object
            self.algorithmName = algorithmName
            self.critical = critical
            self.holdsJWT = holdsJWT
            kid = object["kid"]?.stringValue
            signatureAlgorithm = JWSAlgorithm.exactly(algorithmName)
            encodesPayload = object["b64"].map { $0 == .bool(true) } ?? true
        }
    }

    private let parameters: Parameters

    /// All header parameters, in document order.
    public var object: JSONObject { parameters.object }
    /// The `alg` parameter as written.
    public var algorithmName: String { parameters.algorithmName }
    /// The extension parameters the producer marked critical (`crit`), validated per RFC 7515 §4.1.11.
    public var critical: [String] { parameters.critical }
    /// The first parameter marked critical that `isUnderstood` refuses, read in place (no copy
    /// of the list retained and released, as `critical` makes).
    package func firstCritical(notUnderstood isUnderstood: (String) -> Bool) -> String? {
        parameters.critical.first { !isUnderstood($0) }
    }
    /// Whether the payload is itself a JWT (`cty: JWT`, RFC 7519 §5.2): the token nests another.
    package var holdsJWT: Bool { parameters.holdsJWT }
    /// The key ID (`kid`). Read once with the header, as the next two: a header is decoded once
    /// for the many tokens that carry its text (`JOSEHeaderCache`), and read for each of them.
    public var kid: String? { parameters.kid }
    /// The JWS algorithm `alg` names exactly, if it names one.
    package var signatureAlgorithm: JWSAlgorithm? { parameters.signatureAlgorithm }
    /// Whether a JWS payload is base64url-encoded: `b64` absent or true (RFC 7797).
    package var encodesPayload: Bool { parameters.encodesPayload }

    /// Headers are equal when their parameters are, in the same order.
    public static func == (lhs: JOSEHeader, rhs: JOSEHeader) -> Bool {
        lhs.parameters === rhs.parameters || (lhs.object == rhs.object && lhs.algorithmName == rhs.algorithmName)
    }

    /// Header parameters registered by RFC 7515, 7516 and 7518, which `crit` may not name.
    static let registeredNames: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
        "enc", "zip", "epk", "apu", "apv", "iv", "tag", "p2s", "p2c",
    ]

    /// The JSON type RFC 7515 §4.1, RFC 7516 §4.1 and RFC 7518 §4.6–4.8 fix for each registered
    /// parameter (and RFC 7797's `b64`). A parameter of another type makes the header malformed:
    /// a numeric `kid` must not read as "no kid" and so select every key.
    static let registeredTypes: [String: String] = [
        "alg": "string", "jku": "string", "jwk": "object", "kid": "string", "x5u": "string", "x5c": "array",
        "x5t": "string", "x5t#S256": "string", "typ": "string", "cty": "string", "crit": "array",
        "enc": "string", "zip": "string", "epk": "object", "apu": "string", "apv": "string",
        "iv": "string", "tag": "string", "p2s": "string", "p2c": "number", "b64": "boolean",
    ]

    init(object: JSONObject) throws(JOSEError) {
        guard let alg = object["alg"] else { throw JOSEError(.invalidHeader, "the header has no 'alg'") }
        guard case let .string(name) = alg else { throw JOSEError(.invalidHeader, "header 'alg' must be a string, found \(alg.typeName)") }
        try self.init(protected: object, algorithmName: name)
    }

    /// The protected header of a JWE in JSON serialization, which may leave `alg` to each
    /// recipient's unprotected header: `algorithmName` is the recipient's.
    package init(protected object: JSONObject, algorithmName: String) throws(JOSEError) {
        // Each member is looked up in the table (a dictionary hashes canonically, so the name is
        // confirmed exactly): a header has a few members, the table twenty-one.
        var holdsJWT = false
        for member in object.members {
            guard let index = JOSEHeader.registeredTypes.index(forKey: member.name) else { continue }
            let (name, type) = JOSEHeader.registeredTypes[index]
            // Found here, in the pass every header makes, rather than by a lookup per token.
            if name == "cty", case let .string(value) = member.value, name.isExactly(member.name) {
                holdsJWT = JOSEHeader.normalizedMediaType(value) == "jwt"
            }
            guard member.value.typeName != type, name.isExactly(member.name) else { continue }
            throw JOSEError(.invalidHeader, "header '\(member.name)' must be \(type == "array" || type == "object" ? "an" : "a") \(type), found \(member.value.typeName) (RFC 7515 §4.1)")
        }
        parameters = Parameters(object: object, algorithmName: algorithmName, critical: try JOSEHeader.readCritical(object), holdsJWT: holdsJWT)
    }

    private static func readCritical(_ object: JSONObject) throws(JOSEError) -> [String] {
        guard let value = object["crit"] else { return [] }
        guard case let .array(entries) = value, !entries.isEmpty else {
            throw JOSEError(.invalidHeader, "header 'crit' must be a non-empty array of names")
        }
        var names: [String] = []
        for entry in entries {
            guard case let .string(name) = entry else { throw JOSEError(.invalidHeader, "header 'crit' must list names as strings") }
            guard !registeredNames.containsExactly(name) else {
                throw JOSEError(.invalidHeader, "header 'crit' names '\(name)', a registered parameter that may not be marked critical")
            }
            guard !names.containsExactly(name) else { throw JOSEError(.invalidHeader, "header 'crit' names '\(name)' twice") }
            guard object[name] != nil else {
                throw JOSEError(.invalidHeader, "header 'crit' names '\(name)' but the header has no such parameter")
            }
            names.append(name)
        }
        return names
    }

    /// A string parameter, or nil when absent or not a string.
    public func string(_ name: String) -> String? { object[name]?.stringValue }

    /// The media type (`typ`).
    public var type: String? { string("typ") }
    /// The content type (`cty`).
    public var contentType: String? { string("cty") }


    /// A `typ` or `cty` value as media types compare (RFC 7515 §4.1.9–4.1.10): ASCII letters
    /// lowered, and only ASCII ones, with an `application/` prefix dropped.
    package static func normalizedMediaType(_ type: String) -> String {
        let lowered = String(decoding: type.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        return lowered.hasExactPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }
}
