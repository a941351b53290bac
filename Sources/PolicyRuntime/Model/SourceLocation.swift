@_spi(RuleAuthoring) import PolicyJOSE

/// A position in a policy file: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The file as the user named it.
    public let file: String
    /// The line, from 1.
    public let line: Int
    /// The column, from 1, in characters.
    public let column: Int

    /// A location in `file`.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form editors and terminals turn into links.
    public var description: String { "\(file):\(line):\(column)" }

    /// Orders by file, then line, then column: diagnostics print in reading order.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
