/// An integer with thousands separators: `12,345`, as batch's and diff's summaries and the
/// HTML reports write counts.
package struct Grouped: CustomStringConvertible, Sendable {
    /// The integer.
    package let value: Int

    /// `value`, to be written grouped.
    package init(_ value: Int) {
        self.value = value
    }

    /// `12,345`.
    package var description: String {
        let digits = String(abs(value))
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}
