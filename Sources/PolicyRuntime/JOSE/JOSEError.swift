internal import Foundation

/// A failure to parse, load or process a token, key or encrypted message.
///
/// Codes are stable identifiers a caller can switch on or log; messages say what was wrong and,
/// where it helps, what to do instead. A signature that simply does not verify is not an error:
/// verification returns `false` for it.
public struct JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable, machine-readable kind of a `JOSEError`.
    public enum Code: String, Sendable, CaseIterable, Codable {
        /// The compact serialization has the wrong number of parts, or an empty required part.
        case malformedToken = "malformed_token"
        /// The input exceeds the configured size limit.
        case tokenTooLarge = "token_too_large"
        /// A part is not strict, unpadded base64url.
        case invalidBase64URL = "invalid_base64url"
        /// A header, payload, key or document is not valid JSON.
        case invalidJSON = "invalid_json"
        /// JSON nesting exceeds the configured depth limit.
        case jsonTooDeep = "json_too_deep"
        /// A JSON object names the same member twice.
        case duplicateMember = "json_duplicate_member"
        /// The protected header is not an object, or lacks a required parameter.
        case invalidHeader = "invalid_header"
        /// The header asks for `alg: none`, which is never accepted.
        case algNone = "alg_none"
        /// The algorithm is unknown or deliberately not offered (RSA1_5, PBES2).
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// A header parameter demands processing that is refused (`b64: false`, `zip`, unknown `crit`).
        case unsupportedHeader = "unsupported_header"
        /// The header marks an extension critical (`crit`) that is not understood.
        case critUnsupported = "crit_unsupported"
        /// Key material is malformed: bad encoding, non-minimal integers, a point off its curve.
        case keyInvalid = "key_invalid"
        /// The key type or curve is not supported.
        case keyUnsupported = "key_unsupported"
        /// The key is too weak to use: a short RSA modulus or HMAC secret, a ROCA-weak modulus.
        case keyTooWeak = "key_too_weak"
        /// The key may not be used for this operation or algorithm (family, curve, `use`, `key_ops`, `alg`).
        case keyMismatch = "key_mismatch"
        /// A key set is ambiguous: duplicate `kid`s, or secret and public keys mixed.
        case keySetInvalid = "key_set_invalid"
        /// No key in the set can verify or decrypt this message.
        case keyNotFound = "key_not_found"
        /// Decryption or authentication of an encrypted message failed.
        case decryptionFailed = "decryption_failed"
        /// A JWE's ephemeral public key is malformed or not on the recipient's curve.
        case invalidEphemeralKey = "invalid_ephemeral_key"
        /// A certificate could not be parsed.
        case certificateInvalid = "certificate_invalid"
        /// The cryptographic library reported an internal failure.
        case cryptoFailure = "crypto_failure"
    }

    /// The stable kind of failure.
    public let code: Code
    /// A sentence for a person: what was wrong, and what to do where that is not obvious.
    public let message: String

    /// Creates an error with a code and a human-readable message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension JOSEError {
    /// The message without what it quotes of the input: JSON syntax errors name a character, a
    /// member name or a number of the document, which for a key file or a decrypted payload is
    /// not for anyone's eyes. Other messages quote nothing.
    public var messageWithoutContent: String {
        switch code {
        case .invalidJSON, .duplicateMember, .jsonTooDeep:
            let offset = message.range(of: "(at byte ", options: .backwards).map { " " + message[$0.lowerBound...] } ?? ""
            return "not a JSON document (\(code.rawValue))\(offset)"
        default:
            return message
        }
    }
}
