@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// Readings of the token that several rules share.
enum TokenClaims {
    /// A numeric date claim (`exp`, `nbf`, `iat`) as RFC 7519 defines it.
    enum NumericDate {
        case absent
        case seconds(Double)
        /// Present but not a usable number; the registered-claims type check reports it.
        case unusable(String)
    }

    static func numericDate(_ name: RegisteredClaim, in claims: JSONObjectView) -> NumericDate {
        // The common case, an integer read while indexing, without building a value; within
        // `UnixTime.supportedRange` it needs no other check.
        if let integer = claims.integer(name), integer.magnitude <= RegisteredClaim.largestDateMagnitude { return .seconds(Double(integer)) }
        guard let value = claims[name] else { return .absent }
        guard case let .number(number) = value else { return .unusable("'\(name)' is \(value.typeName), not a number") }
        let seconds = number.doubleValue
        // RFC 7519 §2: any JSON number. Beyond ±2^60 s (36 billion years) is refused as out of range.
        guard seconds.isFinite, UnixTime.supportedRange.contains(seconds) else {
            return .unusable("'\(name)' \(number) is outside the supported NumericDate range (±2^60 seconds from 1970)")
        }
        return .seconds(seconds)
    }

    /// `aud` as a list: a string is a one-element audience (RFC 7519 §4.1.3).
    static func audiences(_ claims: JSONObjectView) -> [String]? {
        switch claims[RegisteredClaim.aud] {
        case let .string(single)?: [single]
        case let .array(items)?:
            items.allSatisfy { $0.stringValue != nil } ? items.compactMap(\.stringValue) : nil
        default: nil
        }
    }
}

enum TimeText {
    static func duration(_ seconds: Int64) -> String {
        if seconds % 86400 == 0, seconds >= 86400 { return "\(seconds / 86400)d" }
        if seconds % 3600 == 0, seconds >= 3600 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0, seconds >= 60 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}

extension RuleCompiler {
    /// Text values shown in messages: `"a"` or `["a", "b"]`.
    static func show(_ values: [String]) -> String {
        let message: FindingMessage = "\(shown: values)"
        return message.text
    }
}

extension FindingMessage.StringInterpolation {
    /// One text value as messages show it, `"a"`.
    mutating func appendInterpolation(shown value: String) {
        appendLiteral("\"")
        appendInterpolation(value)
        appendLiteral("\"")
    }

    /// Text values as messages show them, `"a"` or `["a", "b"]`, written into the message
    /// rather than made a string of their own first.
    mutating func appendInterpolation(shown values: [String]) {
        if values.count == 1 { return appendInterpolation(shown: values[0]) }
        appendLiteral("[")
        for (index, value) in values.enumerated() {
            appendLiteral(index == 0 ? "\"" : ", \"")
            appendInterpolation(value)
            appendLiteral("\"")
        }
        appendLiteral("]")
    }
}

extension EvaluationContext {
    /// The token; token rules only run when one was decoded.
    var decoded: DecodedToken { token! }
}

/// Claim reads for the rules that run on every token, as methods of the token: the claims are
/// then read in place from the object that holds them, where a rule reading
/// `context.decoded.claims` itself retained and released the claims' index around each lookup,
/// an atomic pair a rule a token (a fifth of a fast token's time went to such pairs).
extension DecodedToken {
    /// The registered numeric date `name` (`TokenClaims.numericDate`).
    func numericDate(_ name: RegisteredClaim) -> TokenClaims.NumericDate {
        TokenClaims.numericDate(name, in: claims)
    }

    /// The kind of the registered claim `name`, nil when absent.
    func kind(of name: RegisteredClaim) -> JSONKind? {
        claims.kind(of: name)
    }

    /// Whether the registered claim `name` is a string equal to one of `expected`, compared in place.
    func string(_ name: RegisteredClaim, equalsOneOf expected: [String]) -> Bool {
        expected.contains { claims.string(name, equals: $0) }
    }

    /// The registered claim `name` as a string, "" when it is not one: for messages.
    func text(of name: RegisteredClaim) -> String {
        claims[name]?.stringValue ?? ""
    }

    /// `aud` as a list of strings (`TokenClaims.audiences`).
    var audiences: [String]? { TokenClaims.audiences(claims) }
}

/// String settings that may name inputs (`issuer: ${expected_issuer}`), such as the issuers or
/// audiences a rule compares with.
struct StringValues: Sendable {
    let values: [PolicyValue]
    /// The strings themselves when no value names an input: resolved once when the policy is
    /// compiled rather than for every token.
    private let literals: [String]
    /// Whether every value is a literal, so that `literals` are the strings (a flag rather than
    /// an optional list: binding the optional copied the list for every token).
    private let allLiteral: Bool

    init(_ values: [PolicyValue]) {
        self.values = values
        let literals = values.compactMap { value -> String? in
            if case let .literal(.string(text)) = value { return text }
            return nil
        }
        allLiteral = literals.count == values.count
        self.literals = allLiteral ? literals : []
    }

    /// `body`'s answer for the strings of this evaluation; nil when an input value is not a
    /// string. Lent rather than returned: the compiled literals are passed in place, where a
    /// returned array was retained and released for every token.
    func withResolved<Answer>(in context: EvaluationContext, _ body: ([String]) -> Answer) -> Answer? {
        if allLiteral { return body(literals) }
        var result: [String] = []
        for value in values {
            guard let text = context.resolve(value)?.stringValue else { return nil }
            result.append(text)
        }
        return body(result)
    }

    /// The strings for this evaluation, as an array of the caller's own; nil when an input
    /// value is not a string.
    func resolved(in context: EvaluationContext) -> [String]? {
        withResolved(in: context) { $0 }
    }

    /// How the values are written, for `explain`.
    var display: [String] { values.map(\.display) }
}
