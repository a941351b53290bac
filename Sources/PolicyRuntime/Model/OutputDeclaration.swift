@_spi(RuleAuthoring) import PolicyJOSE

/// A value a valid verdict hands to the caller (POLICY-FORMAT.md section 7).
public struct OutputDeclaration: Sendable {
    /// Where the value is read from.
    public enum Source: Sendable, CustomStringConvertible {
        case claim(ClaimPath)
        case header(ClaimPath)

        /// The source as a policy writes it: `claims.sub`, `header.kid`.
        public var description: String {
            switch self {
            case let .claim(path): "claims.\(path)"
            case let .header(path): "header.\(path)"
            }
        }
    }

    /// The output's name in the verdict.
    public let name: String
    /// A claim path or a header path.
    public let source: Source
    /// Where it is declared.
    public let location: SourceLocation
}
