/// Calendar text for Unix times, as verdicts and traces show them.
///
/// Computed arithmetically (days to civil date) rather than with a date formatter: messages are
/// built per token, and creating a formatter costs more than verifying an HMAC.
public enum UnixTime {
    /// `2026-11-21T10:00:00Z` for seconds since the epoch, fractions dropped; outside years
    /// 1–9999 the number itself.
    public static func iso8601(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= -62_135_596_800, seconds < 253_402_300_800 else { return String(seconds) }
        let total = Int64(seconds.rounded(.down))
        let days = total >= 0 ? total / 86400 : (total - 86399) / 86400
        let secondOfDay = total - days * 86400
        // Howard Hinnant's civil_from_days.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(secondOfDay / 3600, 2)):\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2))Z"
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
