import PolicyRuntime
@_spi(JSONWriting) @testable import PolicyJOSE
import Testing

/// The byte writer behind verdict lines and every serialization: commas, escapes, numbers.
@Suite("JSON writer")
struct JSONWriterTests {
    /// `text` as a JSON string, escaped byte by byte.
    static func reference(_ text: String) -> String {
        var out = Array("\"".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case ..<0x20: out += Array("\\u00\(byte < 0x10 ? "0" : "")\(String(byte, radix: 16))".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out + Array("\"".utf8), as: UTF8.self)
    }

    /// A string is given room for its bytes as they are; escapes that outgrow it are written
    /// as the room grows, wherever in the buffer the string starts.
    @Test("strings whose escapes outgrow the room made for them are written whole")
    func escapesBeyondTheRoom() throws {
        let pieces = ["\u{01}", "\"", "a", "\\", "\n", "\u{1F}", "é", "bcdefghijklmnopq"]
        var generator = SplitMix(seed: 0xE5CA_9E5)
        for length in [1, 5, 15, 16, 17, 100, 1000, 5000] {
            let text = (0..<length).map { _ in pieces[generator.next(pieces.count)] }.joined()
            for prefix in [0, 1, 7, 15] {
                var writer = JSONWriter(capacity: 16)
                writer.beginArray()
                writer.string(String(repeating: "x", count: prefix))
                writer.string(text)
                writer.endArray()
                #expect(writer.text == "[\"\(String(repeating: "x", count: prefix))\",\(Self.reference(text))]", "\(length) after \(prefix)")
                #expect(try JSONParser().parse(writer.bytes) == .array([.string(String(repeating: "x", count: prefix)), .string(text)]))
            }
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("code", plain: "audience_mismatch")
        writer.member("message", "aud \"a\"")
        writer.endObject()
        #expect(writer.text == #"{"code":"audience_mismatch","message":"aud \"a\""}"#)
    }

    @Test("strings are escaped exactly as RFC 8259 requires, and other bytes are copied as they are")
    func escapes() {
        let text = "a\"b\\c\n\t\r\u{01}\u{1F}é/€𝄞\u{7F}"
        #expect(JSONValue.string(text).serialized() == #""a\"b\\c\n\t\r\u0001\u001fé/€𝄞\#u{7F}""#)
        #expect(JSONValue.string("").serialized() == #""""#)
        #expect(JSONValue.string("\"").serialized() == #""\"""#)
    }

    /// Strings are scanned sixteen bytes at a time (past the first sixteen of a long one,
    /// thirty-two with AVX2), and the last one to fifteen in one step of their own (the input's
    /// last sixteen bytes, or a padded copy of a shorter input): each byte to escape, at each
    /// position of strings of every length around those steps, is escaped as a byte-by-byte
    /// writer would, and a parser reads each back.
    @Test("a byte to escape is escaped at every position of strings of every length, and integers are written as Swift prints them")
    func escapesAtEveryPosition() throws {
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é"] {
            for length in Array(1...40) + [80, 81, 100, 113, 130] {
                for position in 0..<length {
                    var characters = Array(repeating: "a", count: length)
                    characters[position] = special
                    let text = characters.joined()
                    let written = JSONValue.string(text).serialized()
                    #expect(written == Self.reference(text), "\(length) at \(position)")
                    #expect(try JSONParser().parse(Array(written.utf8)) == .string(text), "\(written)")
                }
            }
        }
        for length in 0...40 {
            let text = String(repeating: "a", count: length)
            #expect(JSONValue.string(text).serialized() == "\"\(text)\"")
        }
        for value: Int64 in [0, 9, 10, 99, 100, 1_795_253_400, -1, -10, -1_795_253_400, .max, .min] {
            var writer = JSONWriter()
            writer.integer(value)
            #expect(writer.text == String(value))
        }
    }

    @Test("nested objects and arrays get their commas in the right places, and parse back to the same value")
    func structure() throws {
        let value = JSONValue.object(JSONObject([
            "empty_object": .object(JSONObject()), "empty_array": .array([]),
            "nested": .array([.array([]), .object(JSONObject(["a": .null])), .array([.bool(true), .bool(false)])]),
            "numbers": .array([.number(.integer(0)), .number(.integer(7)), .number(.integer(-12)), .number(.integer(Int64.min)),
                               .number(.bigInteger("123456789012345678901234567890")), .number(.decimal(0.25))]),
            "text": .string("line\nbreak"),
        ]))
        let bytes = value.serializedBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"empty_object":{},"empty_array":[],"nested":[[],{"a":null},[true,false]],"#
            + #""numbers":[0,7,-12,-9223372036854775808,123456789012345678901234567890,0.25],"text":"line\nbreak"}"#)
        #expect(try JSONParser().parse(bytes) == value)
        #expect(JSONValue.array([.number(.decimal(.nan)), .number(.decimal(-.infinity)), .number(.decimal(1e300))]).serialized() == "[null,null,1e+300]")
    }

    @Test("written member by member, reset keeps nothing of the previous value, and append separates lines")
    func memberByMember() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("x")
        writer.integer(1)
        writer.endObject()
        writer.reset()
        for index in 0..<2 {
            writer.beginObject()
            writer.key("line")
            writer.integer(Int64(index))
            writer.key("tags")
            writer.beginArray()
            writer.string("a")
            writer.value(.object(JSONObject(["b": .number(.integer(2))])))
            writer.endArray()
            writer.endObject()
            writer.append(UInt8(ascii: "\n"))
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "{\"line\":0,\"tags\":[\"a\",{\"b\":2}]}\n{\"line\":1,\"tags\":[\"a\",{\"b\":2}]}\n")
    }

    /// The writer's storage is its own: a copy written to, or reset, leaves the other's text as
    /// it was, and text far beyond the first capacity is kept whole.
    @Test("a copied writer keeps its own text; the storage grows past its first capacity")
    func copiesAndGrowth() {
        var first = JSONWriter(capacity: 4)
        first.beginArray()
        first.string("shared")
        var second = first
        second.string(String(repeating: "x", count: 5000))
        first.integer(7)
        second.endArray()
        first.endArray()
        #expect(first.text == #"["shared",7]"#)
        #expect(second.text == "[\"shared\",\"" + String(repeating: "x", count: 5000) + "\"]")
        #expect(second.byteCount == second.bytes.count && second.byteCount == 5013)
        var third = second
        third.reset()
        third.null()
        #expect(third.text == "null")
        #expect(second.byteCount == 5013)
        #expect(second.withBytes { Array($0) } == second.bytes)
    }

    /// The sixteen-byte scans (CJSONScan) against the byte-by-byte rule they replace: every byte
    /// value at every position of the first vectors and their tails.
    @Test("the string scans stop exactly where the byte-by-byte rule would, for every byte value at every position")
    func scansMatchTheRule() {
        for length in [0, 1, 15, 16, 17, 33, 40] {
            for position in 0..<max(1, length) {
                for value in 0...255 {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    if length > 0 { bytes[position] = UInt8(value) }
                    let byte = UInt8(value)
                    let reads = length > 0 && (byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C) ? position : length
                    let skipped = bytes.withUnsafeBufferPointer { buffer in
                        var cursor = JSONCursor(bytes: buffer, maxDepth: 4)
                        cursor.skipPlainASCII()
                        return cursor.index
                    }
                    #expect(skipped == reads, "length \(length), byte 0x\(String(value, radix: 16)) at \(position)")
                    guard byte < 0x80 else { continue }
                    // The writer escapes exactly the quote, the backslash and control bytes.
                    let text = String(decoding: bytes, as: UTF8.self)
                    let escapes = length > 0 && (byte < 0x20 || byte == 0x22 || byte == 0x5C)
                    #expect(JSONValue.string(text).serialized().count == length + 2 + (escapes ? (byte < 0x20 && ![0x0A, 0x0D, 0x09].contains(byte) ? 5 : 1) : 0),
                            "length \(length), byte 0x\(String(value, radix: 16)) at \(position)")
                }
            }
        }
    }
}
