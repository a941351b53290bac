import Foundation
import PolicyRuntime
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
}
