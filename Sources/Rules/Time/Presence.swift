@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// Whether a time claim must be present: `required` or `optional`.
enum Presence: String {
    case required
    case optional

    static func read(_ node: YAMLNode, key: String, _ compiler: inout RuleCompiler) -> Presence? {
        guard let text = compiler.literalString(node, what: "'\(key)'") else { return nil }
        guard let presence = Presence(rawValue: text) else {
            compiler.error(.invalidValue, "'\(key)' must be required or optional, found \"\(text)\"", at: node,
                           hint: Suggestion.didYouMean(text, among: ["required", "optional"]))
            return nil
        }
        return presence
    }
}
