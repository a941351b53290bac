@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The name–value pairs of `application/x-www-form-urlencoded` text: a query, a callback's
/// fragment, a form body (WHATWG URL §5.1, strictly: a bad percent escape or invalid UTF-8 is
/// an error, not a replacement character).
package struct FormParameters: Sendable, Equatable {
    package struct Pair: Sendable, Equatable {
        package let name: String
        package let value: String
    }

    /// In the order they appear, repeats included.
    package let pairs: [Pair]

    package init(pairs: [Pair]) {
        self.pairs = pairs
    }

    /// Decodes `text` (without the leading `?` or `#`); the error says which parameter is bad.
    package init(decoding text: Substring) throws(FormEncodingError) {
        var pairs: [Pair] = []
        for (index, segment) in text.split(separator: "&", omittingEmptySubsequences: true).enumerated() {
            let (rawName, rawValue) = segment.firstIndex(of: "=").map { (segment[..<$0], segment[segment.index(after: $0)...]) } ?? (segment, "")
            guard let name = Self.decode(rawName) else { throw FormEncodingError(parameter: index + 1, part: "name") }
            guard let value = Self.decode(rawValue) else { throw FormEncodingError(parameter: index + 1, part: "value of '\(name)'") }
            pairs.append(Pair(name: name, value: value))
        }
        self.pairs = pairs
    }

    /// Every value of `name`.
    package func values(_ name: String) -> [String] {
        pairs.filter { $0.name.isExactly(name) }.map(\.value)
    }

    /// The value of `name` when it appears exactly once.
    package func single(_ name: String) -> String? {
        let found = values(name)
        return found.count == 1 ? found[0] : nil
    }

    /// Names that appear more than once, in order of first appearance.
    package var repeatedNames: [String] {
        var seen: Set<[UInt8]> = [], repeated: [String] = []
        for pair in pairs where !seen.insert(Array(pair.name.utf8)).inserted && !repeated.containsExactly(pair.name) {
            repeated.append(pair.name)
        }
        return repeated
    }

    /// `+` as space (form encoding only), then `%XX` escapes; nil for a broken escape or bytes
    /// that are not UTF-8.
    static func decode(_ text: Substring, plusIsSpace: Bool = true) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A parameter whose percent escapes are broken or do not decode to UTF-8.
package struct FormEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based position of the parameter.
    package let parameter: Int
    /// `name`, or `value of 'NAME'`.
    package let part: String

    package var description: String {
        "the \(part) of parameter \(parameter) has a broken percent escape or is not UTF-8"
    }
}
