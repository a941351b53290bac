@_spi(RuleAuthoring) import PolicyJOSE

/// An amount of memory as an operator writes it: `67108864`, `512KiB`, `64MiB`, `1GiB` (binary
/// units, a space before the unit allowed), for the cache settings of `policy-run batch` and
/// `policy-run serve`.
///
/// Only binary units are read, so `64MB` is refused rather than taken as 64,000,000 or as
/// 64 MiB: a size that means something else than its writer thought is worse than an error.
package enum ByteSize {
    /// How a size is written, for error messages.
    package static let syntax = "a whole number of bytes, or of KiB, MiB or GiB (64MiB)"

    /// Why a text is not a size within range: `'64MB' is not a size: write …`, or `'512KiB' is
    /// out of range: from 1MiB to 64GiB`.
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// The bytes `text` stands for, within `range`.
    ///
    /// - Throws: `Problem` when `text` is not a size, or is one out of `range`.
    package static func bytes(_ text: String, in range: ClosedRange<Int>) throws(Problem) -> Int {
        guard let bytes = parse(text) else { throw Problem(description: "'\(InertText.escaped(text))' is not a size: write \(syntax)") }
        guard range.contains(bytes) else {
            throw Problem(description: "'\(InertText.escaped(text))' is out of range: from \(written(range.lowerBound)) to \(written(range.upperBound))")
        }
        return bytes
    }

    /// `bytes` in the largest unit that divides it: `64MiB`, `1536KiB`, `100`.
    package static func written(_ bytes: Int) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes != 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return String(bytes)
    }

    private static func parse(_ text: String) -> Int? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let amount = Int(digits) else { return nil }
        var unit = text.dropFirst(digits.count)
        if unit.first == " " { unit = unit.dropFirst() }
        let shift: Int
        switch unit {
        case "" where text.count == digits.count, "B": shift = 0
        case "KiB": shift = 10
        case "MiB": shift = 20
        case "GiB": shift = 30
        default: return nil
        }
        let (bytes, overflow) = amount.multipliedReportingOverflow(by: 1 << shift)
        return overflow ? nil : bytes
    }
}
