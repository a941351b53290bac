/// A value a valid verdict hands to the caller (POLICY-FORMAT.md section 7).
public struct OutputDeclaration: Sendable {
    /// Where the value is read from.
    public enum Source: Sendable {
        case claim(ClaimPath)
        case header(ClaimPath)
    }

    /// The output's name in the verdict.
    public let name: String
    /// A claim path or a header path.
    public let source: Source
    /// Where it is declared.
    public let location: SourceLocation
}
