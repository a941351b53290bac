@_spi(RuleAuthoring) public import PolicyJOSE

/// An input a policy declares: a value supplied per evaluation (`--var`, library, batch field).
public struct InputDeclaration: Sendable {
    /// The input's name, as `${name}` refers to it.
    public let name: String
    /// Used when the caller supplies nothing.
    public let defaultValue: JSONValue?
    /// Whether evaluation refuses to run without it. An input without a default is required
    /// unless it says `required: false`: a forgotten nonce must not silently skip its check.
    public let required: Bool
    /// What the input is, for `explain`.
    public let description: String?
    /// Where it is declared.
    public let location: SourceLocation
}
