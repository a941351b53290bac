public import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// An instant as seconds since the Unix epoch: what every evaluation is judged at, what a
/// token's `exp` and `iat` are, and what each way in reads with one parser (`--now`, a batch
/// record's time, the server's `now`, a test case's `now`).
///
/// A number literal is one (`now: 1_795_253_400`); `UnixTime(parsing:)` reads text, `.now` is
/// the wall clock. Fractions of a second are kept: tokens may carry them (RFC 7519 §2).
public struct UnixTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
                        ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Double

    /// The instant `seconds` after the epoch.
    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// The instant `date` stands for.
    public init(_ date: Date) {
        seconds = date.timeIntervalSince1970
    }

    /// Whole seconds, as in `now: 1_795_253_400`.
    public init(integerLiteral seconds: Int64) {
        self.seconds = Double(seconds)
    }

    /// Seconds with a fraction.
    public init(floatLiteral seconds: Double) {
        self.seconds = seconds
    }

    /// Reads unix seconds (`1795253400`, `1795253400.25`, `-86400`) or an RFC 3339 date-time
    /// (`2026-11-21T10:00:00Z`, `2026-11-21T11:00:00.250+01:00`): the one parser of every time
    /// the tools read. Nil for anything else (exponents, `+`, spaces, `inf`, February 30) and
    /// for a number outside `supportedRange`.
    public init?(parsing text: some StringProtocol) {
        let string = String(text)
        let bytes = Array(string.utf8)
        let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
        let point = digits.firstIndex(of: UInt8(ascii: "."))
        let whole = digits[..<(point ?? digits.endIndex)]
        let fraction = point.map { digits[($0 + 1)...] } ?? []
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        if !whole.isEmpty, whole.allSatisfy(isDigit), point == nil || (!fraction.isEmpty && fraction.allSatisfy(isDigit)) {
            guard let seconds = Double(string), let time = UnixTime.checked(seconds) else { return nil }
            self = time
        } else if let seconds = UnixTime.parseRFC3339(string) {
            self.seconds = seconds
        } else {
            return nil
        }
    }

    /// The wall clock's time.
    public static var now: UnixTime { UnixTime(Date()) }

    /// The same instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: seconds) }

    /// `2026-11-21T10:00:00Z`, fractions dropped.
    public var iso8601: String { UnixTime.iso8601(seconds) }

    /// The RFC 3339 form, as verdicts and traces show times.
    public var description: String { iso8601 }

    /// The time from `earlier` to this one.
    public func duration(since earlier: UnixTime) -> Duration {
        .seconds(seconds - earlier.seconds)
    }

    /// Whether `lhs` is the earlier instant.
    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool { lhs.seconds < rhs.seconds }

    /// Read and written as the plain number of seconds, as in a verdict's `clock.now`.
    public init(from decoder: any Decoder) throws {
        seconds = try decoder.singleValueContainer().decode(Double.self)
    }

    /// Writes the plain number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }

    /// `seconds` as an instant when it is finite and within `supportedRange`: how a time that
    /// arrives as a JSON number (a record's `ts`, a check call's `now`) is taken.
    package static func checked(_ seconds: Double) -> UnixTime? {
        seconds.isFinite && supportedRange.contains(seconds) ? UnixTime(seconds: seconds) : nil
    }

    /// The NumericDate values the engine supports (RFC 7519 §2 allows any JSON number): up to
    /// 2^60 seconds either side of the epoch, about 36 billion years, which holds 2^53 and every
    /// calendar year a token could mean while calendar arithmetic stays far from overflow.
    package static let supportedRange: ClosedRange<Double> = -Double(RegisteredClaim.largestDateMagnitude) ... Double(RegisteredClaim.largestDateMagnitude)

    /// `2026-11-21T10:00:00Z` for seconds since the epoch, fractions dropped. Years past 9999
    /// and before 0 are written with a sign and as many digits as they need (ISO 8601 expanded
    /// years: `+10000-01-01T00:00:00Z`); a value outside `supportedRange` or not finite is
    /// written as the number itself.
    package static func iso8601(_ seconds: Double) -> String {
        if let text = withISO8601Bytes(seconds, { String(decoding: $0, as: UTF8.self) }) { return text }
        guard seconds.isFinite, supportedRange.contains(seconds) else { return String(seconds) }
        let (year, month, day, secondOfDay) = civil(seconds)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let digits = String(year.magnitude)
        return (year < 0 ? "-" : "+") + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            + "-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// The times `withISO8601Bytes` writes, the years 0 to 9999: those a verdict that quotes the
    /// time it was judged at can be requoted at (`Verdict.requoted(at:)`).
    package static let twentyByteISO8601Times = TimeWindow(from: -62_167_219_200, until: 253_402_300_800)

    /// Calls `body` with the twenty bytes of `2026-11-21T10:00:00Z` for `seconds`, written digit
    /// by digit on the stack: findings of expired tokens quote two dates each, and a batch of old
    /// tokens formats millions. Nil, without calling `body`, for a time `iso8601` writes otherwise
    /// (a year before 0 or after 9999, a value outside `supportedRange`).
    package static func withISO8601Bytes<Result>(_ seconds: Double, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard seconds.isFinite, supportedRange.contains(seconds) else { return nil }
        let (year, month, day, secondOfDay) = civil(seconds)
        guard (0...9999).contains(year) else { return nil }
        var text: (UInt64, UInt64, UInt32) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &text) { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            func put(_ value: Int64, width: Int, at position: Int, then separator: UInt8) {
                var value = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
                buffer[position + width] = separator
            }
            put(year, width: 4, at: 0, then: UInt8(ascii: "-"))
            put(month, width: 2, at: 5, then: UInt8(ascii: "-"))
            put(day, width: 2, at: 8, then: UInt8(ascii: "T"))
            put(secondOfDay / 3600, width: 2, at: 11, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, width: 2, at: 14, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, width: 2, at: 17, then: UInt8(ascii: "Z"))
            return body(UnsafeBufferPointer(rebasing: buffer[..<20]))
        }
    }

    /// The proleptic Gregorian year, month, day and second of the day of `seconds` (finite, in
    /// `supportedRange`), fractions dropped: Howard Hinnant's civil_from_days.
    private static func civil(_ seconds: Double) -> (year: Int64, month: Int64, day: Int64, secondOfDay: Int64) {
        let total = Int64(seconds.rounded(.down))
        let days = total >= 0 ? total / 86400 : (total - 86399) / 86400
        let secondOfDay = total - days * 86400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day, secondOfDay)
    }

    /// Seconds since the epoch for an RFC 3339 date-time (`2026-11-21T10:00:00Z`,
    /// `2026-11-21T11:00:00.250+01:00`; `t` and `z` accepted in lower case); nil for anything else,
    /// including impossible dates such as February 30.
    package static func parseRFC3339(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard bytes.indices.contains(index), (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int64(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7), bytes[7] == UInt8(ascii: "-"),
              let day = number(8..<10), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
              let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16), bytes[16] == UInt8(ascii: ":"),
              let second = number(17..<19), (1...12).contains(month), hour < 24, minute < 60, second < 61 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[Int(month) - 1] else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            let digitsStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > digitsStart else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(index + 1..<index + 3), bytes[index + 3] == UInt8(ascii: ":"),
                  let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        // Howard Hinnant's days_from_civil.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }
}
