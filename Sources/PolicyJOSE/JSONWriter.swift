internal import CJSONScan
/// JSON text written straight into bytes, member by member: compact, or indented for people.
///
/// Verdict lines of a batch are written this way instead of being built as a `JSONValue` tree
/// first: for a log of millions of records, the tree's allocations cost more than judging the
/// token. The CLI prints a verdict with the same writer, indented, so there is one serializer.
/// Commas, line breaks and indentation are placed by the writer; callers only open, name, write
/// and close. Behind an SPI of its own rather than `package`: Swift inlines a `package` function
/// in no other module, and a verdict line calls these writers a few dozen times.
@_spi(JSONWriting) public struct JSONWriter: Sendable {
    /// The text written so far; written only through the methods below.
    @usableFromInline var buffer: JSONByteBuffer
    /// The text written so far, copied into an array.
    public var bytes: [UInt8] { buffer.array }
    /// The number of bytes written so far.
    public var byteCount: Int { buffer.count }
    /// Whether the next member or element needs a comma before it.
    @usableFromInline var needsComma = false
    /// Two spaces per level and a line per member or element; empty containers stay `{}` and `[]`.
    @usableFromInline let pretty: Bool
    /// Open objects and arrays.
    @usableFromInline var depth = 0
    /// Whether a member name was just written, so its value goes on the same line.
    @usableFromInline var valueFollowsKey = false

    /// A writer of compact text, or of indented text when `pretty`.
    public init(capacity: Int = 256, pretty: Bool = false) {
        buffer = JSONByteBuffer(capacity: capacity)
        self.pretty = pretty
    }

    /// The text written so far.
    public var text: String { buffer.withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with the text written so far, without copying it.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try buffer.withBytes(body)
    }

    /// What `write` writes, as a value: how a type whose JSON this writer writes offers a
    /// `JSONValue` and an `Encodable` conformance that agree with its text member for member.
    public static func value(_ write: (inout JSONWriter) -> Void) -> JSONValue {
        var writer = JSONWriter()
        write(&writer)
        do {
            // Valid JSON by construction; no depth limit applies to what the engine wrote.
            return try writer.withBytes { bytes throws(JOSEError) in try JSONParser(maxDepth: .max).parse(bytes) }
        } catch {
            preconditionFailure("the writer wrote JSON that does not parse: \(error)")
        }
    }

    /// Empties the text, keeping its storage for the next value.
    public mutating func reset() {
        buffer.removeAll()
        needsComma = false
        depth = 0
        valueFollowsKey = false
    }

    /// Appends a raw byte between values, such as the newline ending a JSON line.
    @inlinable @inline(__always) public mutating func append(_ byte: UInt8) {
        buffer.append(byte)
        needsComma = false
    }

    /// Opens an object; name each member with `key` (or `member`), then close it with `endObject`.
    @inlinable @inline(__always) public mutating func beginObject() {
        open(UInt8(ascii: "{"))
    }

    /// Closes the innermost object.
    @inlinable @inline(__always) public mutating func endObject() {
        close(UInt8(ascii: "}"))
    }

    /// Opens an array; write its elements, then close it with `endArray`.
    @inlinable @inline(__always) public mutating func beginArray() {
        open(UInt8(ascii: "["))
    }

    /// Closes the innermost array.
    @inlinable @inline(__always) public mutating func endArray() {
        close(UInt8(ascii: "]"))
    }

    @inlinable @inline(__always) mutating func open(_ bracket: UInt8) {
        separate()
        buffer.append(bracket)
        depth += 1
        needsComma = false
    }

    @inlinable @inline(__always) mutating func close(_ bracket: UInt8) {
        depth -= 1
        // `needsComma` still says whether the container got anything: an empty one stays on its line.
        if pretty, needsComma { breakLine() }
        buffer.append(bracket)
        needsComma = true
    }

    /// A member name inside an object; its value comes next.
    @inlinable @inline(__always) public mutating func key(_ name: String) {
        separate()
        writeQuoted(name)
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(UInt8(ascii: " ")) }
        needsComma = false
        valueFollowsKey = true
    }

    /// A member name with nothing to escape, written as it is: for the fixed names of lines
    /// written millions of times, where escaping each name costs more than the line's values.
    @inlinable @inline(__always) public mutating func key(plain name: StaticString) {
        separate()
        buffer.makeRoom(for: name.utf8CodeUnitCount + 3)
        buffer.appendReserved(UInt8(ascii: "\""))
        buffer.appendReserved(name.utf8Start, count: name.utf8CodeUnitCount)
        buffer.appendReserved(UInt8(ascii: "\""))
        buffer.appendReserved(UInt8(ascii: ":"))
        if pretty { buffer.append(UInt8(ascii: " ")) }
        needsComma = false
        valueFollowsKey = true
    }

    /// Members already written as compact JSON text (`"a":1,"b":[]`), placed as the writer
    /// places members: a fixed tail of a line, appended in one copy.
    ///
    /// - Precondition: the writer is compact; indented text places each member itself.
    public mutating func members(compact text: StaticString) {
        precondition(!pretty, "fixed member text is compact")
        separate()
        buffer.append(text)
        needsComma = true
    }

    /// Members already written as compact JSON text, as `members(compact:)` places them: a
    /// line's members rendered once and written for many lines.
    ///
    /// - Precondition: the writer is compact.
    public mutating func members(compact text: [UInt8]) {
        precondition(!pretty, "rendered member text is compact")
        separate()
        text.withUnsafeBufferPointer { buffer.append($0) }
        needsComma = true
    }

    /// Whether the writer indents.
    public var isPretty: Bool { pretty }

    /// A member whose value is a string: `key(plain:)` then `string`. Its name is fixed text
    /// with nothing to escape, as every member name the engine writes is.
    @inlinable @inline(__always) public mutating func member(_ name: StaticString, _ text: String) {
        key(plain: name)
        string(text)
    }

    /// A member whose value is text with nothing to escape (a finding's snake_case code),
    /// copied without looking for escapes.
    ///
    /// - Precondition: `text` holds no quote, backslash or control character.
    @inlinable @inline(__always) public mutating func member(_ name: StaticString, plain text: String) {
        key(plain: name)
        separate()
        writeQuoted(text, escaping: false)
        needsComma = true
    }

    /// A member whose value is `true` or `false`, its name fixed text with nothing to escape.
    @inlinable @inline(__always) public mutating func member(_ name: StaticString, _ flag: Bool) {
        key(plain: name)
        bool(flag)
    }

    /// A string, escaped as RFC 8259 requires.
    @inlinable @inline(__always) public mutating func string(_ text: String) {
        separate()
        writeQuoted(text)
        needsComma = true
    }

    /// An integer.
    public mutating func integer(_ value: Int64) {
        separate()
        if value >= 0, value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            // On the stack, no string: a line number per verdict line.
            DecimalDigits.with(value) { buffer.append($0) }
        }
        needsComma = true
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        buffer.append(value ? Self.trueBytes : Self.falseBytes)
        needsComma = true
    }

    /// `null`.
    public mutating func null() {
        separate()
        buffer.append(Self.nullBytes)
        needsComma = true
    }

    /// A number; JSON has no NaN or infinity, so those are written as `null`.
    public mutating func number(_ number: JSONNumber) {
        if case let .integer(value) = number { return integer(value) }
        if case let .decimal(value) = number, !value.isFinite { return null() }
        separate()
        var text = number.description
        text.withUTF8 { buffer.append($0) }
        needsComma = true
    }

    /// A whole value, members in their order.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case let .bool(flag): bool(flag)
        case let .number(number): self.number(number)
        case let .string(text): string(text)
        case let .array(elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case let .object(object):
            beginObject()
            for member in object.members {
                key(member.name)
                self.value(member.value)
            }
            endObject()
        }
    }

    private static let trueBytes: StaticString = "true"
    private static let falseBytes: StaticString = "false"
    private static let nullBytes: StaticString = "null"

    @inlinable @inline(__always) mutating func separate() {
        if valueFollowsKey {
            valueFollowsKey = false
            return
        }
        if needsComma { buffer.append(UInt8(ascii: ",")) }
        if pretty, depth > 0 { breakLine() }
    }

    @usableFromInline mutating func breakLine() {
        buffer.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { buffer.append("  ") }
    }

    @usableFromInline mutating func writeQuoted(_ text: String, escaping: Bool = true) {
        assert(escaping || !text.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }, "'\(text)' needs escapes")
        // A native string's bytes, borrowed: a mutable copy for `withUTF8` retained each text.
        if text.utf8.withContiguousStorageIfAvailable({ buffer.appendQuoted($0, escaping: escaping) }) == nil {
            var text = text
            text.withUTF8 { buffer.appendQuoted($0, escaping: escaping) }
        }
    }
}
