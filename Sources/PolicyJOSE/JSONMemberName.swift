/// A member name prepared once for the lookups of many objects: its text, its length and its
/// first eight bytes as a word, which `JSONObjectView` compares with each member's before any
/// byte comparison.
///
/// The claims every token is checked for (`iss`, `exp`, …) are looked up a score of times per
/// token; preparing their names once, instead of reading a `String`'s bytes per lookup, makes a
/// lookup a few word comparisons.
@_spi(RuleAuthoring) public struct JSONMemberName: Sendable, CustomStringConvertible {
    /// The name.
    public let text: String
    let word: UInt64
    let count: Int

    /// The name `text`, prepared.
    public init(_ text: String) {
        var text = text
        (word, count) = text.withUTF8 { (NameWord($0).value, $0.count) }
        self.text = text
    }

    /// Whether the bytes at `bytes`, a name of this one's length whose word equals this one's,
    /// are this name: compared past the word only when the name is longer than eight bytes.
    func restEquals(_ bytes: UnsafePointer<UInt8>) -> Bool {
        guard count > 8 else { return true }
        var text = text
        return text.withUTF8 { NameWord.restEqual(bytes, $0.baseAddress, count: count) }
    }

    /// The name, as messages quote it.
    public var description: String { text }
}
