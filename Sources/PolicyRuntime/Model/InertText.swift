@_spi(RuleAuthoring) import PolicyJOSE

/// Untrusted text made inert for a terminal or a log line.
///
/// A `kid`, `iss`, `state` or `error_description` may hold a newline and an escape sequence that,
/// printed raw, draws a fake `VALID` line or rewrites the screen. Text output escapes every
/// character that controls a terminal or reorders what it shows: C0 controls (newline, carriage
/// return and tab included), DEL, C1 controls, the bidirectional overrides and isolates
/// ("Trojan Source") and the Unicode line and paragraph separators. JSON output needs none of
/// this: its strings are escaped by the JSON writer.
package enum InertText {
    /// `text` with each such character written as `\n`, `\r`, `\t` or `\u{XXXX}`; text without
    /// any is returned as it is.
    package static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u{" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "}"
            }
        }
        return result
    }

    /// Whether `scalar` is one of the characters `escaped` rewrites.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
