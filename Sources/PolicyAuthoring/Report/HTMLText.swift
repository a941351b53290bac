@_spi(RuleAuthoring) import PolicyRuntime

/// Text made safe for an HTML page: everything the report shows from a log (issuers, kids,
/// finding messages, file names) is the log's, so it is escaped wherever it is written, in text
/// and in attribute values alike.
package enum HTMLText {
    /// `text` made inert as the text summary makes it (controls, newlines and the bidirectional
    /// overrides written as `\n` or `\u{202E}`: an issuer must not show reversed, or break a
    /// tooltip's lines), then with `&`, `<`, `>`, `"` and `'` written as character references.
    package static func escaped(_ text: String) -> String {
        var out = ""
        let inert = InertText.escaped(text)
        out.reserveCapacity(inert.utf8.count)
        for scalar in inert.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` cut to `limit` characters, with `…` where it was cut.
    package static func cut(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// `1234567` as `1,234,567`.
    package static func count(_ value: Int) -> String {
        Grouped(value).description
    }

    /// `1 record`, `2,000 records`: a count and its noun, `noun` given in the singular.
    package static func count(_ value: Int, _ noun: String) -> String {
        "\(count(value)) \(noun)\(value == 1 ? "" : "s")"
    }

    /// `part` of `whole` as a percentage with one decimal (`12.5%`); `–` of nothing.
    package static func share(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "–" }
        let tenths = (Double(part) * 1000 / Double(whole)).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10)%"
    }
}
