internal import PolicyCrypto

/// The public JSON form of a key, and its RFC 7638 thumbprint.
extension JWK {
    /// The members that define the public key (RFC 7638 §3.2), in lexicographic order; for
    /// `oct`, the secret itself.
    package func requiredMembers() throws(JOSEError) -> JSONObject {
        switch material {
        case let .asymmetric(.rsa(key)):
            let (n, e) = (key.modulus, key.publicExponent)
            guard !n.isEmpty, !e.isEmpty else { throw JOSEError(.cryptoFailure, "could not export the RSA key") }
            return JSONObject(["e": .string(Base64URL.encode(e)), "kty": .string("RSA"), "n": .string(Base64URL.encode(n))])
        case let .asymmetric(.ec(key)):
            let (x, y) = try JOSEError.mapping { () throws(CryptoError) in try key.publicCoordinates() }
            return JSONObject(["crv": .string(key.curve.jwkName), "kty": .string("EC"), "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y))])
        case let .asymmetric(.okp(key)):
            return JSONObject(["crv": .string(key.curve.rawValue), "kty": .string("OKP"), "x": .string(Base64URL.encode(key.publicKey))])
        case let .secret(secret):
            return JSONObject(["k": .string(Base64URL.encode(secret)), "kty": .string("oct")])
        }
    }

    /// The RFC 7638 thumbprint: base64url(SHA-256(the required members as compact JSON)).
    package func thumbprint() throws(JOSEError) -> String {
        Base64URL.sha256(JSONValue.object(try requiredMembers()).serializedBytes())
    }

    /// The public JWK with its `kid`, `use`, `key_ops` and `alg`; never private parts
    /// (an `oct` key has no public form and is refused).
    package func publicJSON() throws(JOSEError) -> JSONObject {
        guard type != .oct else { throw JOSEError(.keyMismatch, "a symmetric key has no public form") }
        var object = try requiredMembers()
        if let kid { object.set("kid", .string(kid)) }
        if let use { object.set("use", .string(use)) }
        if let keyOperations { object.set("key_ops", .array(keyOperations.map(JSONValue.string))) }
        if let algorithm { object.set("alg", .string(algorithm)) }
        return object
    }
}
