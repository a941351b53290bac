internal import PolicyCrypto
/// A JWE key-management algorithm (RFC 7518 §4).
///
/// RSA1_5 (padding-oracle prone) and PBES2 (password-based, a brute-force and CPU-exhaustion
/// target) are deliberately absent; naming them fails with `unsupported_algorithm`.
package enum JWEKeyAlgorithm: String, Sendable, CaseIterable, Codable {
    case rsaOAEP = "RSA-OAEP"
    case rsaOAEP256 = "RSA-OAEP-256"
    case ecdhES = "ECDH-ES"
    case ecdhESA128KW = "ECDH-ES+A128KW"
    case ecdhESA192KW = "ECDH-ES+A192KW"
    case ecdhESA256KW = "ECDH-ES+A256KW"
    case a128KW = "A128KW"
    case a192KW = "A192KW"
    case a256KW = "A256KW"
    case a128GCMKW = "A128GCMKW"
    case a192GCMKW = "A192GCMKW"
    case a256GCMKW = "A256GCMKW"
    case direct = "dir"

    /// Reads a header or policy `alg` value.
    package init(name: String) throws(JOSEError) {
        if let known = JWEKeyAlgorithm.exactly(name) {
            self = known
            return
        }
        if name == "RSA1_5" {
            throw JOSEError(.unsupportedAlgorithm, "JWE alg RSA1_5 is not offered (PKCS#1 v1.5 encryption invites padding-oracle attacks); use RSA-OAEP-256")
        }
        if name.hasPrefix("PBES2") {
            throw JOSEError(.unsupportedAlgorithm, "JWE alg \(name) is not offered (password-based keys); use a key-based algorithm")
        }
        throw JOSEError(.unsupportedAlgorithm, "unsupported JWE key-management algorithm '\(name)'")
    }

    /// The AES key-wrap key length in bytes, for the AES-KW based algorithms.
    var keyWrapByteCount: Int? {
        switch self {
        case .a128KW, .ecdhESA128KW, .a128GCMKW: 16
        case .a192KW, .ecdhESA192KW, .a192GCMKW: 24
        case .a256KW, .ecdhESA256KW, .a256GCMKW: 32
        default: nil
        }
    }

    var isECDH: Bool {
        switch self {
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: true
        default: false
        }
    }

    var isSymmetric: Bool {
        switch self {
        case .a128KW, .a192KW, .a256KW, .a128GCMKW, .a192GCMKW, .a256GCMKW, .direct: true
        default: false
        }
    }
}

/// A JWE content-encryption algorithm (RFC 7518 §5).
package enum JWEContentEncryption: String, Sendable, CaseIterable, Codable {
    case a128GCM = "A128GCM"
    case a192GCM = "A192GCM"
    case a256GCM = "A256GCM"
    case a128CBCHS256 = "A128CBC-HS256"
    case a192CBCHS384 = "A192CBC-HS384"
    case a256CBCHS512 = "A256CBC-HS512"

    /// Reads a header or policy `enc` value.
    package init(name: String) throws(JOSEError) {
        guard let known = JWEContentEncryption.exactly(name) else {
            throw JOSEError(.unsupportedAlgorithm, "unsupported JWE content encryption '\(name)'")
        }
        self = known
    }

    /// The content-encryption key length in bytes (both halves for the CBC-HMAC composites).
    package var keyByteCount: Int {
        switch self {
        case .a128GCM: 16
        case .a192GCM: 24
        case .a256GCM: 32
        case .a128CBCHS256: 32
        case .a192CBCHS384: 48
        case .a256CBCHS512: 64
        }
    }

    /// The IV length in bytes the algorithm requires.
    package var ivByteCount: Int { isGCM ? 12 : 16 }

    /// The authentication tag length in bytes the algorithm requires.
    package var tagByteCount: Int { isGCM ? 16 : keyByteCount / 2 }

    var isGCM: Bool {
        switch self {
        case .a128GCM, .a192GCM, .a256GCM: true
        default: false
        }
    }

    /// The HMAC digest of a CBC-HMAC composite.
    var macDigest: DigestAlgorithm? {
        switch self {
        case .a128CBCHS256: .sha256
        case .a192CBCHS384: .sha384
        case .a256CBCHS512: .sha512
        default: nil
        }
    }
}
