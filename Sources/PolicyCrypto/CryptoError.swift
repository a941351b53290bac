/// A failure of a cryptographic operation or of key material, from the layer that wraps OpenSSL
/// and libsodium.
///
/// A signature that does not verify is not an error (verification returns `false`); these are
/// keys that cannot be built or used, data that cannot be decrypted, and library failures. The
/// token layer maps each code to its own error with the same name (`CryptoError`).
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kind of a `CryptoError`.
    public enum Code: String, Sendable, CaseIterable {
        /// Key material is malformed: bad encoding, a point off its curve, parts that do not match.
        case keyInvalid = "key_invalid"
        /// The key type, curve or encoding is not supported.
        case keyUnsupported = "key_unsupported"
        /// The key cannot perform this operation (a public key asked to sign, a curve mismatch).
        case keyMismatch = "key_mismatch"
        /// The peer's public key of a key agreement is invalid or not on the expected curve.
        case peerKeyInvalid = "peer_key_invalid"
        /// A certificate could not be parsed, or a chain does not verify.
        case certificateInvalid = "certificate_invalid"
        /// Decryption or authentication of ciphertext failed.
        case decryptionFailed = "decryption_failed"
        /// A parameter is outside what the primitive supports (an AES-GCM IV too long).
        case unsupportedParameter = "unsupported_parameter"
        /// The library reported an internal failure (out of memory, a missing algorithm).
        case cryptoFailure = "crypto_failure"
    }

    /// The stable kind of failure.
    public let code: Code
    /// What went wrong, for a person; never holds key material.
    public let message: String

    /// Creates an error with a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`, for logs.
    public var description: String { "\(code.rawValue): \(message)" }
}
