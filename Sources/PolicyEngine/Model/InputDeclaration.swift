/// An input a policy declares: a value supplied per evaluation (`--var`, library, batch field).
public struct InputDeclaration: Sendable {
    public let name: String
    /// Used when the caller supplies nothing.
    public let defaultValue: JSONValue?
    /// Whether evaluation refuses to run without it. An input without a default is required
    /// unless it says `required: false`: a forgotten nonce must not silently skip its check.
    public let required: Bool
    public let description: String?
    public let location: SourceLocation
}
