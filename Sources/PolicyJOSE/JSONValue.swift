/// A parsed JSON value, as found in JOSE headers, token claims and keys.
///
/// Objects keep their members in document order; numbers keep integers exact (see `JSONNumber`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this value is a JSON string.
    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// The object, when this value is a JSON object.
    public var objectValue: JSONObject? {
        if case let .object(value) = self { return value }
        return nil
    }

    /// The elements, when this value is a JSON array.
    public var arrayValue: [JSONValue]? {
        if case let .array(value) = self { return value }
        return nil
    }

    /// The number, when this value is a JSON number.
    public var numberValue: JSONNumber? {
        if case let .number(value) = self { return value }
        return nil
    }

    /// The boolean, when this value is `true` or `false`.
    public var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// Equal values of the same JSON type; strings compare by code points (`ExactText`), never
    /// by Unicode canonical equivalence, and numbers numerically.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a.isExactly(b)
        case let (.array(a), .array(b)): a.count == b.count && zip(a, b).allSatisfy { $0 == $1 }
        case let (.object(a), .object(b)): a == b
        default: false
        }
    }

    /// The JSON type name used in messages and matchers: `string`, `number`, `boolean`, ...
    public var typeName: String { kind.name }

    /// What kind of value this is.
    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}

/// A JSON number that keeps integers exact.
///
/// JSON does not bound integers, and claims such as `exp` must compare exactly, so integers are
/// kept as `Int64` when they fit and as their decimal digits otherwise; only numbers written
/// with a fraction or exponent become `Double`. Equality is numeric: `1` equals `1.0`.
public enum JSONNumber: Sendable, Equatable, CustomStringConvertible {
    case integer(Int64)
    /// An integer literal outside the `Int64` range, as its canonical decimal digits.
    case bigInteger(String)
    case decimal(Double)

    /// The value as a `Double` (rounded for very large integers).
    public var doubleValue: Double {
        switch self {
        case let .integer(value): Double(value)
        case let .bigInteger(digits): Double(digits) ?? .nan
        case let .decimal(value): value
        }
    }

    /// The value as an exact `Int64`, when it is an integer in range.
    public var int64Value: Int64? {
        switch self {
        case let .integer(value): value
        case .bigInteger: nil
        case let .decimal(value):
            value.rounded(.towardZero) == value && abs(value) < 9.2e18 ? Int64(value) : nil
        }
    }

    /// The number as JSON writes it: exact for integers, however large.
    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .bigInteger(digits): digits
        case let .decimal(value): String(value)
        }
    }

    /// Whether two numbers are the same value; a big integer equals only the same digits.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): a == b
        case let (.bigInteger(a), .bigInteger(b)): a == b
        case (.bigInteger, _), (_, .bigInteger): false
        default: lhs.doubleValue == rhs.doubleValue
        }
    }
}

/// One member of a JSON object.
public struct JSONMember: Sendable, Equatable {
    public static func == (lhs: JSONMember, rhs: JSONMember) -> Bool {
        lhs.name.isExactly(rhs.name) && lhs.value == rhs.value
    }

    /// The member's name, compared by code points.
    public var name: String
    /// The member's value.
    public var value: JSONValue

    /// A member named `name`.
    public init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }
}

/// A JSON object with its members in document order and unique names.
///
/// `JSONObject(["alg": .string("RS256")])` builds one in the literal's order.
public struct JSONObject: Sendable, Equatable {
    /// The members in the order they appeared.
    public private(set) var members: [JSONMember]

    /// Creates an object from members whose names the caller guarantees to be unique.
    public init(members: [JSONMember] = []) {
        self.members = members
    }

    /// Creates an object in the pairs' order; a repeated name keeps its last value.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        members = []
        members.reserveCapacity(pairs.count)
        for (name, value) in pairs { set(name, value) }
    }

    /// The value of the member named `name`, if present.
    public subscript(name: String) -> JSONValue? {
        // Comparing lengths first skips most names without a full string comparison: claims are
        // looked up many times per token.
        let count = name.utf8.count
        for member in members where member.name.utf8.count == count && member.name.isExactly(name) { return member.value }
        return nil
    }

    /// The member names in document order.
    public var names: [String] { members.map(\.name) }

    /// The number of members.
    public var count: Int { members.count }

    /// Sets a member, replacing one of the same name or appending a new one.
    public mutating func set(_ name: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.name.isExactly(name) }) {
            members[index].value = value
        } else {
            members.append(JSONMember(name: name, value: value))
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for member in lhs.members where rhs[member.name] != member.value { return false }
        return true
    }
}
