import Foundation
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

@Suite("Unix time text")
struct UnixTimeTests {
    @Test("matches Foundation's ISO 8601 formatter since 1582, leap days and negative times included")
    func matchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let samples: [Double] = [0, -1, 1_795_255_200, 1_795_255_200.9, 951_782_400, 951_868_799, 4_102_444_800,
                                 253_402_300_799, -2_208_988_800, 1_709_164_800]
        for seconds in samples {
            #expect(UnixTime.iso8601(seconds) == formatter.string(from: Date(timeIntervalSince1970: seconds.rounded(.down))), "\(seconds)")
        }
        // Foundation switches to the Julian calendar before 1582; ISO 8601 stays Gregorian.
        #expect(UnixTime.iso8601(-62_135_596_800) == "0001-01-01T00:00:00Z")
        #expect(UnixTime.iso8601(1e300) == "1e+300")
        #expect(UnixTime.iso8601(.nan) == "nan")
    }

    /// The forms every way in accepts (`--now`, a record's `ts`, the server's `now`, a test's
    /// `now`), and what none of them does any more: Swift's `Double(_:)` took `1e9`, `+5`, `0x10`.
    static let parsed: [(text: String, seconds: Double?)] = [
        ("1795253400", 1_795_253_400), ("1795253400.25", 1_795_253_400.25), ("-86400", -86400), ("0", 0),
        ("2026-11-21T10:00:00Z", 1_795_255_200), ("2026-11-21T11:00:00.5+01:00", 1_795_255_200.5), ("2026-11-21t10:00:00z", 1_795_255_200),
        ("1e9", nil), ("+5", nil), ("0x10", nil), (" 5", nil), ("5 ", nil), ("5.", nil), (".5", nil), ("-", nil), ("", nil),
        ("inf", nil), ("nan", nil), ("--5", nil), ("1_000", nil), ("١٢٣", nil), ("1152921504606846977000", nil),
        ("2026-02-30T00:00:00Z", nil), ("2026-11-21 10:00:00Z", nil), ("2026-11-21T10:00:00", nil), ("noon", nil),
    ]

    @Test("one parser: unix seconds with an optional fraction, or RFC 3339; nothing else", arguments: parsed)
    func parsing(_ row: (text: String, seconds: Double?)) {
        #expect(UnixTime(parsing: row.text)?.seconds == row.seconds, "\(row.text)")
    }

    @Test("a literal, a Date and the JSON number a verdict writes are the same instant")
    func forms() throws {
        let literal: UnixTime = 1_795_253_400
        #expect(literal == UnixTime(Date(timeIntervalSince1970: 1_795_253_400)))
        #expect(literal.date.timeIntervalSince1970 == 1_795_253_400 && literal.description == "2026-11-21T09:30:00Z")
        #expect(try JSONDecoder().decode(UnixTime.self, from: Data("1795253400.5".utf8)) == 1_795_253_400.5)
        #expect(try JSONDecoder().decode(UnixTime.self, from: JSONEncoder().encode(literal)) == literal)
        #expect(UnixTime.checked(.infinity) == nil && UnixTime.checked(-.nan) == nil && UnixTime.checked(1e300) == nil)
        #expect((UnixTime(seconds: 100)).duration(since: 40) == .seconds(60))
    }
}
