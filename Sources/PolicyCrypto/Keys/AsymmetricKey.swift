/// An asymmetric key of any family the engine uses: what PEM, DER and certificates hold.
///
/// This is the façade's key type: the token layer builds and keeps these, never OpenSSL's
/// `EVP_PKEY`, and asks them for verifiers, signers and shared secrets.
public enum AsymmetricKey: Sendable {
    case rsa(RSAKey)
    case ec(ECKey)
    case okp(OKPKey)

    /// Classifies a key OpenSSL read; a family or curve the engine does not use is refused.
    init(evp: EVPKey) throws(CryptoError) {
        switch evp.kind {
        case .rsa: self = .rsa(RSAKey(evp: evp))
        case let .ec(curve): self = .ec(ECKey(evp: evp, curve: curve))
        case let .okp(curve): self = .okp(try OKPKey(evp: evp, curve: curve))
        case let .unsupported(what): throw CryptoError(.keyUnsupported, "unsupported key: \(what)")
        }
    }

    /// Reads a PEM block: `PUBLIC KEY`, `PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY` or
    /// `CERTIFICATE` (whose subject public key is taken). Encrypted private keys are refused.
    public init(pem: String) throws(CryptoError) {
        try self.init(evp: EVPKey.fromPEM(pem))
    }

    /// Reads a DER SubjectPublicKeyInfo; EC keys must name their curve.
    public init(publicKeyDER der: [UInt8]) throws(CryptoError) {
        try self.init(evp: EVPKey.fromPublicDER(der))
    }

    /// Reads a DER private key (PKCS#8, or the traditional RSA or EC forms).
    public init(privateKeyDER der: [UInt8]) throws(CryptoError) {
        try self.init(evp: EVPKey.fromPrivateDER(der))
    }

    /// Whether the key holds private material.
    public var isPrivate: Bool {
        switch self {
        case let .rsa(key): key.isPrivate
        case let .ec(key): key.isPrivate
        case let .okp(key): key.isPrivate
        }
    }

    /// The key size in bits: the modulus, the curve order, or the raw key's length.
    public var bits: Int {
        switch self {
        case let .rsa(key): key.bits
        case let .ec(key): key.bits
        case let .okp(key): key.curve.keyByteCount * 8
        }
    }

    /// The OpenSSL key (built on demand for Ed25519).
    func openSSLKey() throws(CryptoError) -> EVPKey {
        switch self {
        case let .rsa(key): key.evp
        case let .ec(key): key.evp
        case let .okp(key): try key.openSSLKey()
        }
    }

    /// The DER SubjectPublicKeyInfo of the public half.
    public func publicKeyDER() throws(CryptoError) -> [UInt8] {
        try openSSLKey().publicDER()
    }

    /// The public half alone (the key itself when it is public).
    public func publicKey() throws(CryptoError) -> AsymmetricKey {
        guard isPrivate else { return self }
        if case let .okp(key) = self { return .okp(try OKPKey(curve: key.curve, publicKey: key.publicKey)) }
        return try AsymmetricKey(publicKeyDER: publicKeyDER())
    }

    /// Whether both hold the same public key.
    public func hasSamePublicKey(as other: AsymmetricKey) -> Bool {
        switch (self, other) {
        case let (.okp(mine), .okp(theirs)): return mine.curve == theirs.curve && mine.publicKey == theirs.publicKey
        case (.okp, _), (_, .okp): return false
        default:
            guard let mine = try? openSSLKey(), let theirs = try? other.openSSLKey() else { return false }
            return mine.hasSamePublicKey(as: theirs)
        }
    }

    /// A verifier prepared once for `scheme`, shared across threads, from the library that
    /// verifies it fastest (`SignatureLibrary.preference(for:)`).
    ///
    /// - Throws: `keyMismatch` when the scheme is not one of this key's family and curve.
    public func verifier(for scheme: SignatureScheme) throws(CryptoError) -> any SignatureVerifier {
        for library in SignatureLibrary.preference(for: scheme) {
            if let verifier = try verifier(for: scheme, library: library) { return verifier }
        }
        throw CryptoError(.keyMismatch, "the key cannot verify \(scheme) signatures")
    }

    /// The verifier of one library: nil when that library does not serve the scheme or refuses
    /// the key. Tests compare the libraries on the same vectors through this.
    ///
    /// - Throws: `keyMismatch` when the scheme is not one of this key's family and curve; OpenSSL's
    ///   refusal of a key it cannot use.
    package func verifier(for scheme: SignatureScheme, library: SignatureLibrary) throws(CryptoError) -> (any SignatureVerifier)? {
        guard verifies(scheme) else { throw CryptoError(.keyMismatch, "the key cannot verify \(scheme) signatures") }
        switch (self, library) {
        case let (.rsa(key), .openSSL):
            return try PKeyVerifier(key: key.evp, scheme: scheme)
        case let (.rsa(key), .boringSSL):
            return BoringRSAVerifier(publicKeyDER: try key.evp.publicDER(), scheme: scheme)
        case let (.ec(key), .openSSL):
            return try PKeyVerifier(key: key.evp, scheme: scheme)
        case let (.ec(key), .boringSSL):
            guard case let .ecdsa(curve, digest) = scheme else { return nil }
            return BoringECDSAVerifier(publicKeyDER: try key.evp.publicDER(), curve: curve, digest: digest)
        case let (.okp(key), .sodium):
            return key.curve == .ed25519 ? try Ed25519.Verifier(publicKey: key.publicKey) : nil
        case let (.okp(key), .openSSL):
            return EVPEdDSAVerifier(key: try key.openSSLKey(), curve: key.curve)
        default:
            return nil
        }
    }

    /// Whether `scheme` is one of this key's family and curve: what any library may verify.
    private func verifies(_ scheme: SignatureScheme) -> Bool {
        switch (self, scheme) {
        case (.rsa, .rsaPKCS1), (.rsa, .rsaPSS): true
        case let (.ec(key), .ecdsa(curve, _)): curve == key.curve
        case let (.okp(key), .eddsa(curve)): curve == key.curve && curve != .x25519
        default: false
        }
    }

    /// A signer for `scheme`; needs the private key.
    ///
    /// - Throws: `keyMismatch` for a public key or a scheme of another family or curve.
    public func signer(for scheme: SignatureScheme) throws(CryptoError) -> any SignatureSigner {
        guard isPrivate else { throw CryptoError(.keyMismatch, "signing needs a private key") }
        switch (self, scheme) {
        case let (.rsa(key), .rsaPKCS1(_)), let (.rsa(key), .rsaPSS(_)):
            return PKeySigner(key: key.evp, scheme: scheme)
        case let (.ec(key), .ecdsa(curve, _)) where curve == key.curve:
            return PKeySigner(key: key.evp, scheme: scheme)
        case let (.okp(key), .eddsa(curve)) where curve == key.curve && curve == .ed25519:
            return try Ed25519.Signer(seed: key.privateKey!)
        case let (.okp(key), .eddsa(curve)) where curve == key.curve && curve == .ed448:
            return PKeySigner(key: try key.openSSLKey(), scheme: scheme)
        default:
            throw CryptoError(.keyMismatch, "the key cannot sign \(scheme)")
        }
    }
}
