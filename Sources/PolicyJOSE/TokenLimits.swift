/// Size and depth bounds applied to a token before and while it is parsed.
package struct TokenLimits: Sendable, Hashable {
    /// The largest compact token accepted, in bytes (policy `limits.max_token_bytes`).
    package var maxTokenBytes: Int
    /// The deepest JSON nesting accepted in a header or payload (policy `limits.max_json_depth`).
    package var maxJSONDepth: Int
    /// The most tokens a presented token may be made of, itself included, when it nests JWTs
    /// (`cty: JWT`, RFC 7519 §7.2 step 8) (policy `limits.max_layers`): 1 follows no nesting.
    package var maxLayers: Int

    /// Creates limits; the defaults are 64 KiB, 64 levels and 3 layers.
    package init(maxTokenBytes: Int = 64 * 1024, maxJSONDepth: Int = 64, maxLayers: Int = 3) {
        self.maxTokenBytes = maxTokenBytes
        self.maxJSONDepth = maxJSONDepth
        self.maxLayers = maxLayers
    }

    /// The defaults.
    package static let standard = TokenLimits()

    /// The largest `max_json_depth` a policy may set: half what the parser supports at all
    /// (`JSONParser.deepestSupported`), since a verdict that carries claims nests them deeper.
    package static let deepestJSON = 512

    /// The largest `max_layers` a policy may set: each layer is a signature to verify or a
    /// JWE to decrypt, paid for before any claim is read.
    package static let mostLayers = 8
}
