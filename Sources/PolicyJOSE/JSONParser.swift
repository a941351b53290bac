internal import CJSONScan
/// A strict RFC 8259 JSON parser over bytes, for headers, claims and keys that arrive from outside.
///
/// It rejects what lenient parsers let through and attackers use to make two parsers disagree:
/// duplicate member names, invalid UTF-8 (including lone surrogate escapes), nesting past a depth
/// limit, non-finite numbers, leading zeros, a byte-order mark and trailing content.
package struct JSONParser: Sendable {
    /// The deepest `{`/`[` nesting accepted; the top-level object or array counts as 1. At most
    /// `deepestSupported`, whatever is asked.
    package var maxDepth: Int

    /// The deepest nesting the parser accepts at all. It parses recursively, and so do the
    /// comparison, serialization and release of the values it builds: 1,000 levels stay far
    /// inside the smallest thread stack it runs on (a task on the cooperative pool, a sanitizer
    /// build), where about 5,000 overflow a debug build's.
    package static let deepestSupported = 1000

    /// Creates a parser with a depth limit (default 64, at most `deepestSupported`).
    package init(maxDepth: Int = 64) {
        self.maxDepth = min(maxDepth, Self.deepestSupported)
    }

    /// Parses one JSON text from UTF-8 bytes.
    package func parse(_ bytes: some Collection<UInt8>) throws(JOSEError) -> JSONValue {
        try ContiguousBytes.with(bytes) { buffer throws(JOSEError) in try parse(buffer) }
    }

    /// Parses one JSON text from a UTF-8 buffer.
    package func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> JSONValue {
        var cursor = JSONCursor(bytes: buffer, maxDepth: min(maxDepth, Self.deepestSupported))
        cursor.skipWhitespace()
        let value = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        guard cursor.index == buffer.count else {
            throw cursor.error("unexpected content after the JSON value")
        }
        return value
    }

    /// Parses UTF-8 bytes that must hold a JSON object.
    package func parseObject(_ bytes: some Collection<UInt8>, what: String) throws(JOSEError) -> JSONObject {
        let value = try parse(bytes)
        guard case let .object(object) = value else {
            throw JOSEError(.invalidJSON, "\(what) must be a JSON object, found \(value.typeName)")
        }
        return object
    }
}

/// The parser's position in one JSON text. `JSONObjectIndex` reads with the same cursor, so
/// building values and indexing them in place apply the same checks.
struct JSONCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ message: String, code: JOSEError.Code = .invalidJSON) -> JOSEError {
        JOSEError(code, "\(message) (at byte \(index))")
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JOSEError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case 0xEF where index == 0: throw error("a byte-order mark is not allowed before JSON")
        default: throw error("unexpected character \(describe(bytes[index]))")
        }
    }

    func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JOSEError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of JSON") }
        let base = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != base[offset] {
            throw error("invalid literal, expected '\(literal)'")
        }
        index += count
    }

    mutating func enter(depth: Int) throws(JOSEError) {
        guard depth <= maxDepth else {
            throw error("JSON nesting deeper than \(maxDepth) levels", code: .jsonTooDeep)
        }
        index += 1
    }

    mutating func parseObject(depth: Int) throws(JOSEError) -> JSONObject {
        try enter(depth: depth)
        var members: [JSONMember] = []
        members.reserveCapacity(16)
        // Names are told apart by their bytes: a `Set<String>` would take a name and its
        // canonically equivalent spelling for one.
        var seen: Set<[UInt8]>? = nil
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return JSONObject(members: members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes")
            }
            let nameStart = index
            let name = try parseString()
            if members.count < 16 {
                if members.contains(where: { $0.name.isExactly(name) }) { throw duplicate(name, at: nameStart) }
            } else {
                if seen == nil { seen = Set(members.map { Array($0.name.utf8) }) }
                if !seen!.insert(Array(name.utf8)).inserted { throw duplicate(name, at: nameStart) }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONMember(name: name, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON inside an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return JSONObject(members: members) }
            throw error("expected ',' or '}' in object")
        }
    }

    func duplicate(_ name: String, at offset: Int) -> JOSEError {
        JOSEError(.duplicateMember, "duplicate member name \"\(name)\" (at byte \(offset))")
    }

    mutating func parseArray(depth: Int) throws(JOSEError) -> [JSONValue] {
        try enter(depth: depth)
        var elements: [JSONValue] = []
        elements.reserveCapacity(4)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON inside an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return elements }
            throw error("expected ',' or ']' in array")
        }
    }

    mutating func parseString() throws(JOSEError) -> String {
        let start = index + 1
        guard try scanString() else { return try parseEscapedString(from: start) }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
    }

    /// Moves through the string at the cursor up to its closing quote, then past it, and returns
    /// true: its bytes between the quotes are its text, valid UTF-8. Stops at the first escape
    /// instead, on the backslash, and returns false.
    mutating func scanString() throws(JOSEError) -> Bool {
        index += 1
        let start = index
        skipPlainASCII()
        var asciiOnly = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if !asciiOnly, String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) == nil {
                    throw JOSEError(.invalidJSON, "string starting at byte \(start) is not valid UTF-8")
                }
                index += 1
                return true
            }
            if byte == UInt8(ascii: "\\") { return false }
            if byte < 0x20 { throw error("unescaped control character in string") }
            if byte >= 0x80 { asciiOnly = false }
            index += 1
        }
        throw error("unterminated string")
    }

    /// Skips printable ASCII other than `"` and `\\`, sixteen bytes a step (`CJSONScan`):
    /// tokens in log records are long strings of exactly such bytes, and names short ones.
    /// Stops at the first byte the per-byte loop must look at, or at the end.
    mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress, index < bytes.count else { return }
        index += cjsonscan_plain_ascii_prefix(base + index, bytes.count - index)
    }

    /// The slow path for strings with escapes: decodes into bytes, then validates UTF-8.
    mutating func parseEscapedString(from start: Int) throws(JOSEError) -> String {
        var output = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: output, as: UTF8.self) else {
                    throw JOSEError(.invalidJSON, "string starting at byte \(start) is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"): appendUTF8(try parseUnicodeEscape(), to: &output)
                default: throw error("invalid escape '\\\(describe(escape))'")
                }
            default:
                if byte < 0x20 { throw error("unescaped control character in string") }
                output.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func parseHex4() throws(JOSEError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseUnicodeEscape() throws(JOSEError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xDC00...0xDFFF).contains(first) { throw error("lone low surrogate in \\u escape") }
        if (0xD800...0xDBFF).contains(first) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("lone high surrogate in \\u escape")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("high surrogate not followed by a low surrogate") }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(combined)!
        }
        return Unicode.Scalar(first)!
    }

    func appendUTF8(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        output.append(contentsOf: UTF8.encode(scalar)!)
    }

    mutating func parseNumber() throws(JOSEError) -> JSONNumber {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw error("leading zeros are not allowed in numbers")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        // Nineteen digits never overflow 64 bits: they are read without checks (numeric dates
        // have ten), and only longer numbers take the checked loop.
        let digitsStart = index
        while index < bytes.count, index - digitsStart < 19, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            magnitude = magnitude &* 10 &+ UInt64(digit)
            index += 1
        }
        while index < bytes.count, isDigit(bytes[index]) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            magnitude = sum
            overflow = overflow || o1 || o2
            index += 1
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a fraction needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("an exponent needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger, !overflow {
            if !negative, magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
            if negative, magnitude <= UInt64(Int64.max) + 1 { return .integer(Int64(truncatingIfNeeded: 0 &- magnitude)) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Every number must be finite as a double, however it is written: an integer of 310
        // digits is as far out of range as 1e310, and both are refused.
        guard let value = Double(text), value.isFinite else {
            let shown = text.count > 40 ? "\(text.prefix(20))… (\(text.count) characters)" : text
            throw JOSEError(.invalidJSON, "number \(shown) is out of range (at byte \(start))")
        }
        return isInteger ? .bigInteger(text) : .decimal(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
