/// A key on a short-Weierstrass curve, for ECDSA and ECDH, held by OpenSSL.
public struct ECKey: Sendable {
    /// The curve the key lies on.
    public let curve: EllipticCurve
    let evp: EVPKey

    init(evp: EVPKey, curve: EllipticCurve) {
        self.evp = evp
        self.curve = curve
    }

    /// A key from affine coordinates of the curve's exact length, and optionally the private
    /// scalar; the point is checked to lie on the curve (and to match the scalar).
    ///
    /// - Throws: `keyInvalid` for a point off the curve or parts that do not match.
    public init(curve: EllipticCurve, x: [UInt8], y: [UInt8], d: [UInt8]? = nil) throws(CryptoError) {
        evp = try EVPKey.ec(curve: curve, x: x, y: y, d: d)
        self.curve = curve
    }

    /// A private key from its scalar alone, for key agreement where the public half is not needed.
    public init(curve: EllipticCurve, privateScalar d: [UInt8]) throws(CryptoError) {
        evp = try EVPKey.ecPrivateScalar(curve: curve, d: d)
        self.curve = curve
    }

    /// A fresh key pair on `curve`.
    public static func generate(curve: EllipticCurve) throws(CryptoError) -> ECKey {
        ECKey(evp: try EVPKey.generate(.ec(curve)), curve: curve)
    }

    /// The size of the curve's order in bits.
    public var bits: Int { evp.bits }
    /// Whether the private scalar is held.
    public var isPrivate: Bool { evp.hasPrivateKey }

    /// The public point's affine coordinates, each of the curve's coordinate length.
    public func publicCoordinates() throws(CryptoError) -> (x: [UInt8], y: [UInt8]) {
        let size = curve.coordinateByteCount
        guard let point = evp.octetParameter("pub"), point.count == 1 + 2 * size, point[0] == 0x04 else {
            throw CryptoError(.cryptoFailure, "could not export the \(curve.jwkName) public point")
        }
        return (Array(point[1...size]), Array(point[(1 + size)...]))
    }

    /// The ECDH shared secret Z with a peer's public key on the same curve; OpenSSL validates the
    /// peer point (on the curve, in the subgroup) first, which stops invalid-curve attacks.
    ///
    /// - Throws: `peerKeyInvalid` for a peer key OpenSSL refuses, `keyMismatch` without a private key.
    public func sharedSecret(with peer: ECKey) throws(CryptoError) -> [UInt8] {
        guard peer.curve == curve else { throw CryptoError(.peerKeyInvalid, "the peer key is not on \(curve.jwkName)") }
        return try KeyAgreement.sharedSecret(privateKey: evp, peer: peer.evp)
    }
}
