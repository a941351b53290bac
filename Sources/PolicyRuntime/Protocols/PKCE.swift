internal import PolicyCrypto
@_spi(RuleAuthoring) import PolicyJOSE

/// Proof Key for Code Exchange (RFC 7636).
public enum PKCE {
    /// The `S256` challenge: BASE64URL(SHA-256(ASCII(verifier))) without padding.
    public static func s256Challenge(verifier: String) -> String {
        Base64URL.sha256(Array(verifier.utf8))
    }

    /// A fresh verifier of `length` characters (43...128) from `byteCount` secure random bytes,
    /// base64url-encoded as RFC 7636 §4.1 recommends.
    public static func randomVerifier(byteCount: Int = 32) -> String {
        precondition((32...96).contains(byteCount), "a PKCE verifier uses 32 to 96 random bytes (43 to 128 characters)")
        return Base64URL.encode(SecureRandom.bytes(byteCount))
    }

    /// Whether `verifier` has RFC 7636 §4.1's syntax: 43–128 characters of [A-Za-z0-9-._~].
    public static func isWellFormed(verifier: String) -> Bool {
        let bytes = Array(verifier.utf8)
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
    }
}
