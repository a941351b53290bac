@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

extension RuleCompiler {
    /// A claim path as written in `claims` and `require`: dotted, with `["..."]` for names with dots.
    mutating func claimPath(_ text: String, at node: YAMLNode) -> ClaimPath? {
        guard let path = ClaimPath(parsing: text) else {
            error(.invalidValue, "'\(text)' is not a claim path", at: node,
                  hint: "write names separated by dots (tenant.region); quote a name containing dots as [\"https://example.com/roles\"]")
            return nil
        }
        return path
    }
}
