package import PolicyCrypto

/// A JWS signature algorithm the engine accepts (RFC 7518 §3, RFC 8037, RFC 9864, and the
/// brainpool names gematik's IDP uses).
///
/// `none` is not a case: it cannot be named in a policy, and a token that asks for it fails
/// with `alg_none` before any other work.
public enum JWSAlgorithm: String, Sendable, CaseIterable, Codable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512", es256k = "ES256K"
    case bp256r1 = "BP256R1", bp384r1 = "BP384R1", bp512r1 = "BP512R1"
    /// EdDSA with whichever Edwards curve the key is on (RFC 8037).
    case eddsa = "EdDSA"
    /// EdDSA restricted to Ed25519 keys (RFC 9864).
    case ed25519 = "Ed25519"
    /// EdDSA restricted to Ed448 keys (RFC 9864).
    case ed448 = "Ed448"
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"

    /// Whether the algorithm is an HMAC (HS256, HS384, HS512): a shared secret, not a key pair.
    public var isHMAC: Bool { self == .hs256 || self == .hs384 || self == .hs512 }

    /// Reads a header or policy `alg` value, refusing `none` and unknown names with distinct codes.
    package init(name: String) throws(JOSEError) {
        if let known = JWSAlgorithm.exactly(name) {
            self = known
            return
        }
        if name.lowercased() == "none" {
            throw JOSEError(.algNone, "alg '\(name)' (unsecured JWS) is never accepted")
        }
        throw JOSEError(.unsupportedAlgorithm, "unsupported JWS algorithm '\(name)'")
    }

    /// The hash a JWS of this algorithm is built on; `c_hash` and `at_hash` use it (OpenID Core
    /// §3.1.3.6). EdDSA has none of its own; SHA-512 is the convention OpenID-certified
    /// libraries follow for Ed25519, and SHAKE256 is not offered, so Ed448 has none here.
    package var hashForOIDC: DigestAlgorithm? {
        switch self {
        case .rs256, .ps256, .es256, .es256k, .bp256r1, .hs256: .sha256
        case .rs384, .ps384, .es384, .bp384r1, .hs384: .sha384
        case .rs512, .ps512, .es512, .bp512r1, .hs512: .sha512
        case .eddsa, .ed25519: .sha512
        case .ed448: nil
        }
    }

    /// Whether the algorithm is a symmetric MAC rather than a public-key signature.
    public var isSymmetric: Bool {
        switch self {
        case .hs256, .hs384, .hs512: true
        default: false
        }
    }

    /// The curve an ECDSA algorithm is bound to.
    package var ecdsaCurve: EllipticCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        case .es256k: .secp256k1
        case .bp256r1: .brainpoolP256r1
        case .bp384r1: .brainpoolP384r1
        case .bp512r1: .brainpoolP512r1
        default: nil
        }
    }

    /// The signature scheme for a key on `okpCurve` (EdDSA only) or of the algorithm's own family.
    package func scheme(okpCurve: OctetKeyCurve? = nil) -> SignatureScheme? {
        switch self {
        case .rs256: .rsaPKCS1(.sha256)
        case .rs384: .rsaPKCS1(.sha384)
        case .rs512: .rsaPKCS1(.sha512)
        case .ps256: .rsaPSS(.sha256)
        case .ps384: .rsaPSS(.sha384)
        case .ps512: .rsaPSS(.sha512)
        case .es256, .es256k, .bp256r1: .ecdsa(ecdsaCurve!, .sha256)
        case .es384, .bp384r1: .ecdsa(ecdsaCurve!, .sha384)
        case .es512, .bp512r1: .ecdsa(ecdsaCurve!, .sha512)
        case .hs256: .hmac(.sha256)
        case .hs384: .hmac(.sha384)
        case .hs512: .hmac(.sha512)
        case .eddsa: okpCurve.flatMap { $0.isSignatureCurve ? .eddsa($0) : nil }
        case .ed25519: okpCurve == .ed25519 ? .eddsa(.ed25519) : nil
        case .ed448: okpCurve == .ed448 ? .eddsa(.ed448) : nil
        }
    }
}
