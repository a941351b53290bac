@_spi(RuleAuthoring) package import PolicyJOSE

/// A token around the one whose claims are judged (RFC 7519 §7.2 step 8): a JWS whose `cty` is
/// `JWT`, or the JWE of a `format: nested` token.
package enum TokenLayer: Sendable {
    /// A JWS whose payload is the next token; its signature must verify as well.
    case signed(CompactJWS)
    /// A JWE whose plaintext is the next token, with the key that decrypted it.
    case encrypted(JOSEHeader, decryptedBy: VerifiedKey)

    /// How findings name the layer at `index` (outermost 0) of a token of `count` layers.
    package static func describe(_ index: Int, of count: Int) -> String {
        "layer \(index + 1) of \(count) (\(index == 0 ? "the outermost" : "around the claims"))"
    }

    /// The JWS of a signed layer.
    package var signature: CompactJWS? {
        if case let .signed(jws) = self { jws } else { nil }
    }
}
