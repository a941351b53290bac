internal import COpenSSL

/// Comparisons whose time does not depend on where the inputs differ: HMAC tags, and the secrets
/// rules compare (nonce, state, PKCE challenges, `c_hash` / `at_hash`).
public enum ConstantTime {
    /// Whether two byte strings are equal; the length is not secret, the content is.
    public static func equals(_ lhs: [UInt8], _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { CRYPTO_memcmp($0.baseAddress, rhs.baseAddress, lhs.count) == 0 }
    }

    /// Whether two byte strings are equal, in constant time for equal lengths.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        rhs.withUnsafeBytes { equals(lhs, $0) }
    }

    /// Whether two strings hold the same code points (UTF-8 bytes), compared in constant time
    /// for equal lengths; never by Unicode canonical equivalence.
    public static func equals(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
