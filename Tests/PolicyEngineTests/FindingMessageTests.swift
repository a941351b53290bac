@_spi(RuleAuthoring) import PolicyRuntime
import Testing

/// A failure's message is built from its parts in one buffer; it must read exactly as the same
/// interpolation into a `String` would.
@Suite("Finding messages")
struct FindingMessageTests {
    private struct Named: CustomStringConvertible {
        var description: String { "named \u{202E}é" }
    }

    @Test("interpolated messages read as String interpolation writes them, for every kind of value")
    func asStringInterpolation() {
        let text = "api://other", long = String(repeating: "é", count: 300), part = "iss=https://x.example"[...].dropFirst(4)
        let values: [Int64] = [0, 7, -1, 10, 1_795_253_400, .max, .min]
        for value in values {
            let message: FindingMessage = "value \(value); as Int \(Int(value)); as Int32 \(Int32(truncatingIfNeeded: value)) end"
            #expect(message.text == "value \(value); as Int \(Int(value)); as Int32 \(Int32(truncatingIfNeeded: value)) end")
        }
        for seconds in [0, 1_795_253_400.75, -1, -62_135_596_800, -62_135_596_801, 253_402_300_799, 253_402_300_800, -1e300, .nan] {
            let time = UnixTime(seconds: seconds)
            let message: FindingMessage = "expired at \(time);"
            #expect(message.text == "expired at \(time);" && message.text == "expired at \(time.iso8601);", "\(seconds)")
        }
        let unsigned: FindingMessage = "\(UInt64.max) and \(UInt8(200))"
        #expect(unsigned.text == "18446744073709551615 and 200")
        let mixed: FindingMessage = "aud \"\(text)\" does not include \(part) after \(1.5)s, \(Named()), \(Optional(3) as Int?), \(long)"
        #expect(mixed.text == "aud \"\(text)\" does not include \(part) after \(1.5)s, \(Named()), \(String(describing: Optional(3) as Int?)), \(long)")
        let plain: FindingMessage = "the token has no exp, and the policy requires one"
        #expect(plain.text == "the token has no exp, and the policy requires one")
        #expect(FindingMessage("made before").text == "made before")
        let empty: FindingMessage = "\("")"
        #expect(empty.text.isEmpty)
    }

    @Test("a message that outgrows the interpolation's own room reads the same, at every length around it")
    func aroundTheInlineRoom() {
        for length in 100...160 {
            let filler = String(repeating: "x", count: length), tail = "é\u{1F600}"
            let message: FindingMessage = "[\(filler)] \(Int64(length)) \(tail) \(filler.prefix(length % 7))"
            #expect(message.text == "[\(filler)] \(length) \(tail) \(filler.prefix(length % 7))", "length \(length)")
        }
    }

    @Test("a failure keeps its message, whether interpolated or made before")
    func outcomeMessage() {
        let leeway: Int64 = 30
        #expect(RuleOutcome.fail(.signatureInvalid, "expired; evaluated with \(leeway)s leeway").message == "expired; evaluated with 30s leeway")
        let made = "a message " + String(leeway)
        #expect(RuleOutcome.fail(.signatureInvalid, FindingMessage(made)).message == "a message 30")
    }
}
