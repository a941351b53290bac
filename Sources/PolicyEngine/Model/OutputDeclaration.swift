/// A value a valid verdict hands to the caller (POLICY-FORMAT.md section 7).
public struct OutputDeclaration: Sendable {
    public enum Source: Sendable {
        case claim(ClaimPath)
        case header(ClaimPath)
    }

    public let name: String
    public let source: Source
    public let location: SourceLocation
}
