internal import PolicyCrypto

extension Base64URL {
    /// base64url(SHA-256(`bytes`)) without padding: what a PKCE `S256` challenge, a DPoP
    /// proof's `ath`, an RFC 7638 thumbprint and an RFC 8705 `x5t#S256` all are.
    package static func sha256(_ bytes: [UInt8]) -> String {
        encode(DigestAlgorithm.sha256.hash(bytes))
    }
}
