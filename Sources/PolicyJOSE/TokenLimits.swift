/// Size and depth bounds applied to a token before and while it is parsed.
package struct TokenLimits: Sendable, Hashable {
    /// The largest compact token accepted, in bytes (policy `limits.max_token_bytes`).
    package var maxTokenBytes: Int
    /// The deepest JSON nesting accepted in a header or payload (policy `limits.max_json_depth`).
    package var maxJSONDepth: Int

    /// Creates limits; the defaults are 64 KiB and 64 levels.
    package init(maxTokenBytes: Int = 64 * 1024, maxJSONDepth: Int = 64) {
        self.maxTokenBytes = maxTokenBytes
        self.maxJSONDepth = maxJSONDepth
    }

    /// The defaults.
    package static let standard = TokenLimits()

    /// The largest `max_json_depth` a policy may set: half what the parser supports at all
    /// (`JSONParser.deepestSupported`), since a verdict that carries claims nests them deeper.
    package static let deepestJSON = 512
}
