/// `Codable` for JSON values, so verdicts and their outputs encode with any Swift encoder.
///
/// Integers beyond `Int64` encode as their digits in a string: Swift encoders have no
/// arbitrary-precision number, and rounding an identifier would be worse than a type change.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(.integer(integer))
        } else if let number = try? container.decode(Double.self) {
            self = .number(.decimal(number))
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            let dictionary = try container.decode([String: JSONValue].self)
            var object = JSONObject()
            for name in dictionary.keys.sorted() { object.set(name, dictionary[name]!) }
            self = .object(object)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(flag): try container.encode(flag)
        case let .number(.integer(value)): try container.encode(value)
        case let .number(.bigInteger(digits)): try container.encode(digits)
        case let .number(.decimal(value)): try container.encode(value)
        case let .string(text): try container.encode(text)
        case let .array(items): try container.encode(items)
        case let .object(object):
            var dictionary: [String: JSONValue] = [:]
            for member in object.members { dictionary[member.name] = member.value }
            try container.encode(dictionary)
        }
    }
}
