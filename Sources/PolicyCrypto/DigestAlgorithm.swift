/// A hash function the engine uses: SHA-1 only inside RSA-OAEP (RFC 7518 §4.3), the SHA-2 family
/// everywhere else.
public enum DigestAlgorithm: Sendable, Hashable {
    case sha1, sha256, sha384, sha512

    /// The output length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }
}
