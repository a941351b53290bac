@_spi(RuleAuthoring) public import PolicyJOSE

/// A YAML node as the policy compiler reads it: content, where it was written, and its key path.
///
/// Nodes come from `YAMLLoader`, which has already applied the YAML 1.2 core schema, refused
/// duplicate keys and bounded alias expansion, so the compiler only asks typed questions.
@_spi(RuleAuthoring) public struct YAMLNode: Sendable {
    /// What a node holds.
    public enum Content: Sendable {
        case scalar(YAMLScalar)
        case mapping([YAMLPair])
        case sequence([YAMLNode])
    }

    /// The node's value.
    public var content: Content
    /// Where the node starts in its file.
    public var location: SourceLocation
    /// The key path from the document root: `token.claims.scp`, `token.algorithms[1]`.
    public var path: String

    /// A node, for tests and for policies built in code.
    public init(_ content: Content, location: SourceLocation, path: String) {
        self.content = content
        self.location = location
        self.path = path
    }

    /// The members of a mapping node, or nil for any other node.
    public var pairs: [YAMLPair]? {
        if case let .mapping(pairs) = content { return pairs }
        return nil
    }

    /// The items of a sequence node, or nil for any other node.
    public var items: [YAMLNode]? {
        if case let .sequence(items) = content { return items }
        return nil
    }

    /// The scalar of a scalar node, or nil for any other node.
    public var scalar: YAMLScalar? {
        if case let .scalar(scalar) = content { return scalar }
        return nil
    }

    /// The value under `key` in a mapping node.
    public subscript(key: String) -> YAMLNode? {
        pairs?.first { $0.name == key }?.value
    }

    /// A word for the node's shape in messages: "a mapping", "a list", "the string \"x\"".
    public var shapeDescription: String {
        switch content {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case let .scalar(scalar): scalar.description
        }
    }

    static func join(_ path: String, _ key: String) -> String {
        let segment = key.contains(".") ? "[\"\(key)\"]" : key
        return path.isEmpty ? segment : "\(path).\(segment)"
    }
}

extension YAMLNode {
    /// The errors of a node that must be a mapping of `allowed` keys: its wrong shape, or each
    /// key it should not have, located at the key, with a "did you mean" hint for a near miss
    /// (as policy files get), else the allowed keys. For readers of files beside policies (test
    /// files, server configurations).
    public func mappingProblems(allowed: [String], what: String) -> [Diagnostic] {
        guard let pairs else {
            return [Diagnostic(.error, .wrongType, "\(what) must be a mapping, found \(shapeDescription)", at: location, path: path)]
        }
        return pairs.filter { !allowed.contains($0.name) }.map { pair in
            Diagnostic(.error, .unknownKey, "\(what) has no key '\(pair.name)'", at: pair.keyLocation, path: pair.value.path,
                       hint: Suggestion.didYouMean(pair.name, among: allowed) ?? "allowed: \(allowed.joined(separator: ", "))")
        }
    }
}

extension YAMLNode {
    /// A node with no JSON form, for the caller to report in its own words.
    public struct Unconvertible: Error {
        /// A number that is not finite, or a string the caller turned away.
        public let node: YAMLNode
    }

    /// The value as JSON, scalars by their core-schema type.
    ///
    /// - Parameter refused: Strings that may not appear (the compiler refuses input references
    ///   inside lists and mappings).
    /// - Throws: `Unconvertible` naming the first node without a JSON form.
    public func json(refusing refused: (String) -> Bool = { _ in false }) throws(Unconvertible) -> JSONValue {
        switch content {
        case let .scalar(scalar):
            switch scalar.value {
            case .null: return .null
            case let .bool(flag): return .bool(flag)
            case let .integer(value): return .number(.integer(value))
            case let .number(value):
                guard value.isFinite else { throw Unconvertible(node: self) }
                return .number(.decimal(value))
            case let .string(text):
                guard !refused(text) else { throw Unconvertible(node: self) }
                return .string(text)
            }
        case let .sequence(items):
            return .array(try items.map { item throws(Unconvertible) in try item.json(refusing: refused) })
        case let .mapping(pairs):
            var object = JSONObject()
            for pair in pairs { object.set(pair.name, try pair.value.json(refusing: refused)) }
            return .object(object)
        }
    }
}

/// One `key: value` member of a mapping.
@_spi(RuleAuthoring) public struct YAMLPair: Sendable {
    /// The key.
    public let name: String
    /// Where the key is written.
    public let keyLocation: SourceLocation
    /// The value under the key.
    public let value: YAMLNode
}

/// A scalar with its YAML 1.2 core-schema type already resolved.
@_spi(RuleAuthoring) public struct YAMLScalar: Sendable, CustomStringConvertible {
    /// A scalar read with YAML 1.2 core-schema types (`yes` stays a string).
    public enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)
    }

    /// The scalar's text as written (without quotes).
    public let text: String
    /// The typed value: only plain scalars are ever anything but strings.
    public let value: Value
    /// Whether the scalar was written without quotes.
    public let isPlain: Bool

    /// Reads `text`: a plain (unquoted) scalar may be null, a boolean or a number; a quoted one
    /// is always a string.
    public init(text: String, isPlain: Bool) {
        self.text = text
        self.isPlain = isPlain
        value = isPlain ? YAMLScalar.resolve(text) : .string(text)
    }

    /// The value as a string when the author wrote a string; numbers and booleans are not strings.
    public var string: String? {
        if case let .string(text) = value { return text }
        return nil
    }

    public var description: String {
        switch value {
        case .null: "null"
        case let .bool(flag): "the boolean \(flag)"
        case .integer, .number: "the number \(text)"
        case let .string(text): "the string \"\(text)\""
        }
    }

    /// YAML 1.1 spellings of booleans that YAML 1.2 (and this engine) reads as strings.
    /// Plain scalars YAML 1.1 tools read as booleans; YAML 1.2 (and this loader) reads them as strings.
    public static let yaml11Booleans: Set<String> = ["yes", "no", "on", "off", "y", "n", "Yes", "No", "On", "Off", "Y", "N", "YES", "NO", "ON", "OFF"]

    /// YAML 1.2 core schema resolution of a plain scalar.
    static func resolve(_ text: String) -> Value {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let integer = integerValue(text) { return .integer(integer) }
        if let number = floatValue(text) { return .number(number) }
        return .string(text)
    }

    private static func integerValue(_ text: String) -> Int64? {
        var body = Substring(text)
        if body.hasPrefix("0x") { return Int64(body.dropFirst(2), radix: 16) }
        if body.hasPrefix("0o") { return Int64(body.dropFirst(2), radix: 8) }
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let magnitude = Int64(body) else { return nil }
        return negative ? -magnitude : magnitude
    }

    private static func floatValue(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        // [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            return index - start
        }
        if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
        var mantissa = digits()
        if index < scalars.count, scalars[index] == "." {
            index += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            index += 1
            if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == scalars.count else { return nil }
        return Double(text)
    }
}
