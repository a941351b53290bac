/// The public JSON form of a key, and its RFC 7638 thumbprint.
extension JWK {
    /// The members that define the public key (RFC 7638 §3.2), in lexicographic order; for
    /// `oct`, the secret itself.
    public func requiredMembers() throws(JOSEError) -> JSONObject {
        switch (type, material) {
        case let (.rsa, .asymmetric(key)):
            guard let n = key.bigNumberParameter("n"), let e = key.bigNumberParameter("e") else {
                throw JOSEError(.cryptoFailure, "could not export the RSA key")
            }
            return JSONObject(["e": .string(Base64URL.encode(e)), "kty": .string("RSA"), "n": .string(Base64URL.encode(n))])
        case let (.ec(curve), .asymmetric(key)):
            let size = curve.coordinateByteCount
            guard let point = key.octetParameter("pub"), point.count == 1 + 2 * size, point[0] == 0x04 else {
                throw JOSEError(.cryptoFailure, "could not export the EC key")
            }
            return JSONObject([
                "crv": .string(curve.jwkName), "kty": .string("EC"),
                "x": .string(Base64URL.encode(point[1...size])), "y": .string(Base64URL.encode(point[(1 + size)...]))])
        case let (.okp(curve), .ed25519(publicKey, _)):
            return JSONObject(["crv": .string(curve.rawValue), "kty": .string("OKP"), "x": .string(Base64URL.encode(publicKey))])
        case let (.okp(curve), .asymmetric(key)):
            guard let raw = key.rawPublicKey() else { throw JOSEError(.cryptoFailure, "could not export the OKP key") }
            return JSONObject(["crv": .string(curve.rawValue), "kty": .string("OKP"), "x": .string(Base64URL.encode(raw))])
        case let (.oct, .secret(secret)):
            return JSONObject(["k": .string(Base64URL.encode(secret)), "kty": .string("oct")])
        default:
            throw JOSEError(.cryptoFailure, "inconsistent key material")
        }
    }

    /// The RFC 7638 thumbprint: base64url(SHA-256(the required members as compact JSON)).
    public func thumbprint() throws(JOSEError) -> String {
        Base64URL.encode(DigestAlgorithm.sha256.hash(JSONValue.object(try requiredMembers()).serializedBytes()))
    }

    /// The public JWK with its `kid`, `use`, `key_ops` and `alg`; never private parts
    /// (an `oct` key has no public form and is refused).
    public func publicJSON() throws(JOSEError) -> JSONObject {
        guard type != .oct else { throw JOSEError(.keyMismatch, "a symmetric key has no public form") }
        var object = try requiredMembers()
        if let kid { object.set("kid", .string(kid)) }
        if let use { object.set("use", .string(use)) }
        if let keyOperations { object.set("key_ops", .array(keyOperations.map(JSONValue.string))) }
        if let algorithm { object.set("alg", .string(algorithm)) }
        return object
    }
}
