/// A short-Weierstrass curve for ECDSA and ECDH.
public enum EllipticCurve: String, Sendable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"
    case secp256k1 = "secp256k1"
    case brainpoolP256r1 = "BP-256"
    case brainpoolP384r1 = "BP-384"
    case brainpoolP512r1 = "BP-512"

    /// Reads a JWK `crv` name; brainpool curves also go by their SEC names (`brainpoolP256r1`).
    public init?(jwkName: String) {
        // A switch on strings applies canonical equivalence; ASCII text has no equivalent spellings.
        guard jwkName.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        switch jwkName {
        case "P-256": self = .p256
        case "P-384": self = .p384
        case "P-521": self = .p521
        case "secp256k1": self = .secp256k1
        case "BP-256", "brainpoolP256r1": self = .brainpoolP256r1
        case "BP-384", "brainpoolP384r1": self = .brainpoolP384r1
        case "BP-512", "brainpoolP512r1": self = .brainpoolP512r1
        default: return nil
        }
    }

    /// The JWK `crv` name.
    public var jwkName: String { rawValue }

    /// The length of one coordinate or private scalar, in bytes.
    public var coordinateByteCount: Int {
        switch self {
        case .p256, .secp256k1, .brainpoolP256r1: 32
        case .p384, .brainpoolP384r1: 48
        case .p521: 66
        case .brainpoolP512r1: 64
        }
    }

    /// The name OpenSSL gives the curve's group.
    var openSSLGroupName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        case .p521: "secp521r1"
        case .secp256k1: "secp256k1"
        case .brainpoolP256r1: "brainpoolP256r1"
        case .brainpoolP384r1: "brainpoolP384r1"
        case .brainpoolP512r1: "brainpoolP512r1"
        }
    }

    /// Finds the curve for an OpenSSL group name (`P-256` and `prime256v1` both name P-256).
    init?(openSSLGroupName name: String) {
        switch name {
        case "prime256v1", "P-256", "secp256r1": self = .p256
        case "secp384r1", "P-384": self = .p384
        case "secp521r1", "P-521": self = .p521
        case "secp256k1": self = .secp256k1
        case "brainpoolP256r1": self = .brainpoolP256r1
        case "brainpoolP384r1": self = .brainpoolP384r1
        case "brainpoolP512r1": self = .brainpoolP512r1
        default: return nil
        }
    }
}

/// An octet-key-pair curve (RFC 8037): Edwards curves for EdDSA, Montgomery curves for ECDH.
public enum OctetKeyCurve: String, Sendable, CaseIterable {
    case ed25519 = "Ed25519"
    case ed448 = "Ed448"
    case x25519 = "X25519"

    /// The length of a public key (and of a private key), in bytes.
    public var keyByteCount: Int {
        switch self {
        case .ed25519, .x25519: 32
        case .ed448: 57
        }
    }

    /// Whether the curve signs (Edwards) rather than agrees keys (Montgomery).
    public var isSignatureCurve: Bool { self != .x25519 }

    /// The OpenSSL key type name.
    var openSSLName: String {
        switch self {
        case .ed25519: "ED25519"
        case .ed448: "ED448"
        case .x25519: "X25519"
        }
    }
}
