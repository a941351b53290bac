internal import Foundation

/// A failure to parse, load or process a token, key or encrypted message.
///
/// Codes are stable identifiers a caller can switch on or log; messages say what was wrong and,
/// where it helps, what to do instead. A signature that simply does not verify is not an error:
/// verification returns `false` for it.
package typealias JOSEError = CodedError<JOSEFailure>

/// The ways a token, key or encrypted message fails to parse, load or process.
package enum JOSEFailure: ErrorDomain {}

extension CodedError.Code where Domain == JOSEFailure {
    /// The compact serialization has the wrong number of parts, or an empty required part.
    package static var malformedToken: Self { Self("malformed_token") }
    /// The input exceeds the configured size limit.
    package static var tokenTooLarge: Self { Self("token_too_large") }
    /// A part is not strict, unpadded base64url.
    package static var invalidBase64URL: Self { Self("invalid_base64url") }
    /// A header, payload, key or document is not valid JSON.
    package static var invalidJSON: Self { Self("invalid_json") }
    /// JSON nesting exceeds the configured depth limit.
    package static var jsonTooDeep: Self { Self("json_too_deep") }
    /// A JSON object names the same member twice.
    package static var duplicateMember: Self { Self("json_duplicate_member") }
    /// The protected header is not an object, or lacks a required parameter.
    package static var invalidHeader: Self { Self("invalid_header") }
    /// The header asks for `alg: none`, which is never accepted.
    package static var algNone: Self { Self("alg_none") }
    /// The algorithm is unknown or deliberately not offered (RSA1_5, PBES2).
    package static var unsupportedAlgorithm: Self { Self("unsupported_algorithm") }
    /// A header parameter demands processing that is refused (`b64: false`, `zip`, unknown `crit`).
    package static var unsupportedHeader: Self { Self("unsupported_header") }
    /// The header marks an extension critical (`crit`) that is not understood.
    package static var critUnsupported: Self { Self("crit_unsupported") }
    /// Key material is malformed: bad encoding, non-minimal integers, a point off its curve.
    package static var keyInvalid: Self { Self("key_invalid") }
    /// The key type or curve is not supported.
    package static var keyUnsupported: Self { Self("key_unsupported") }
    /// The key is too weak to use: a short RSA modulus or HMAC secret, a ROCA-weak modulus.
    package static var keyTooWeak: Self { Self("key_too_weak") }
    /// The key may not be used for this operation or algorithm (family, curve, `use`, `key_ops`, `alg`).
    package static var keyMismatch: Self { Self("key_mismatch") }
    /// A key set is ambiguous: duplicate `kid`s, or secret and public keys mixed.
    package static var keySetInvalid: Self { Self("key_set_invalid") }
    /// No key in the set can verify or decrypt this message.
    package static var keyNotFound: Self { Self("key_not_found") }
    /// Decryption or authentication of an encrypted message failed.
    package static var decryptionFailed: Self { Self("decryption_failed") }
    /// A JWE's ephemeral public key is malformed or not on the recipient's curve.
    package static var invalidEphemeralKey: Self { Self("invalid_ephemeral_key") }
    /// A certificate could not be parsed.
    package static var certificateInvalid: Self { Self("certificate_invalid") }
    /// The cryptographic library reported an internal failure.
    package static var cryptoFailure: Self { Self("crypto_failure") }
}

extension JOSEError {
    /// The message without what it quotes of the input: JSON syntax errors name a character, a
    /// member name or a number of the document, which for a key file or a decrypted payload is
    /// not for anyone's eyes. Other messages quote nothing.
    package var messageWithoutContent: String {
        switch code {
        case .invalidJSON, .duplicateMember, .jsonTooDeep:
            let offset = message.range(of: "(at byte ", options: .backwards).map { " " + message[$0.lowerBound...] } ?? ""
            return "not a JSON document (\(code.rawValue))\(offset)"
        default:
            return message
        }
    }
}
