package import PolicyCrypto

/// A JSON Web Key (RFC 7517) parsed, validated and made ready to use.
///
/// Loading does all the work that does not depend on a token: the key material becomes a key of
/// the crypto layer (`AsymmetricKey`, or an HMAC secret) once, and a verifier is prepared for every
/// JWS algorithm the key may serve. What a key may serve is the intersection of its type and
/// curve, its own `alg`, `use` and `key_ops`: an RSA public key can never act as an HMAC secret.
package struct JWK: Sendable {
    /// The type and curve of a key.
    package enum KeyType: Sendable, Equatable, CustomStringConvertible {
        case rsa
        case ec(EllipticCurve)
        case okp(OctetKeyCurve)
        case oct

        package var description: String {
            switch self {
            case .rsa: "RSA"
            case let .ec(curve): "EC \(curve.jwkName)"
            case let .okp(curve): "OKP \(curve.rawValue)"
            case .oct: "oct"
            }
        }
    }

    /// What a key is, kept in one immutable object: a key set's keys are copied as the
    /// candidates for every token checked, and a copy then retains one reference rather than
    /// each of the key's strings, arrays and its material.
    private final class Members: Sendable {
        let usage: Usage
        let isPrivate: Bool
        let bits: Int
        let certificateChain: [X509Certificate]
        let verifiers: [PreparedVerifier]
        /// `verifiers`' algorithms, in their order: what key selection asks of every key for
        /// every token, read without touching the verifiers themselves.
        let algorithms: [JWSAlgorithm]

        init(_ usage: Usage, isPrivate: Bool, bits: Int, certificateChain: [X509Certificate]) {
            self.usage = usage
            self.isPrivate = isPrivate
            self.bits = bits
            self.certificateChain = certificateChain
            verifiers = JWK.prepareVerifiers(usage)
            algorithms = verifiers.map(\.algorithm)
        }

        /// Whether `signature` is valid over `message` for `algorithm`; nil when no verifier is
        /// prepared for it. A method of the object that holds the verifiers, so that they are
        /// used where they are stored: the key is shared by every worker, and copies of its
        /// verifiers retained and released it for every token.
        func verify(_ signature: UnsafeRawBufferPointer, over message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool? {
            algorithms.firstIndex(of: algorithm).map { verifiers[$0].verifier.verify(signature: signature, message: message) }
        }
    }

    private let members: Members

    /// The key's type and curve.
    package var type: KeyType { members.usage.type }
    /// The key ID (`kid`), if any.
    package var kid: String? { members.usage.kid }
    /// The intended use (`use`: `sig` or `enc`), if stated.
    package var use: String? { members.usage.use }
    /// The permitted operations (`key_ops`), if stated.
    package var keyOperations: [String]? { members.usage.keyOperations }
    /// The algorithm the key is restricted to (`alg`), if stated.
    package var algorithm: String? { members.usage.algorithm }
    /// Whether the key holds private (or secret) material.
    package var isPrivate: Bool { members.isPrivate }
    /// The key size in bits: the modulus, the curve order, or the secret's length.
    package var bits: Int { members.bits }
    /// The certificates of `x5c`, leaf first; the leaf's key is checked to be this key.
    package var certificateChain: [X509Certificate] { members.certificateChain }

    package var material: Material { members.usage.material }

    package enum Material: Sendable {
        case asymmetric(AsymmetricKey)
        case secret([UInt8])
    }

    private struct PreparedVerifier: Sendable {
        let algorithm: JWSAlgorithm
        let verifier: any SignatureVerifier
    }

    /// The secret of an `oct` key; nil for every other type.
    package var secretBytes: [UInt8]? {
        if case let .secret(bytes) = material { return bytes }
        return nil
    }

    /// Parses a JWK from JSON text.
    package init(json bytes: some Collection<UInt8>, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        try self.init(object: JSONParser().parseObject(bytes, what: "a JWK"), options: options)
    }

    /// Parses and validates a JWK object.
    package init(object: JSONObject, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        let reader = JWKMemberReader(object: object)
        let kty = try reader.requiredString("kty")
        let kid = try reader.optionalString("kid")
        let use = try reader.optionalString("use")
        let keyOperations = try reader.optionalStringArray("key_ops")
        let algorithm = try reader.optionalString("alg")
        if let keyOperations, Set(keyOperations).count != keyOperations.count {
            throw JOSEError(.keyInvalid, "key_ops lists an operation twice")
        }
        let type: KeyType, material: Material, isPrivate: Bool, bits: Int

        switch kty {
        case "RSA":
            let key = try JWK.loadRSA(reader, options: options)
            type = .rsa
            material = .asymmetric(.rsa(key))
            isPrivate = key.isPrivate
            bits = key.bits
        case "EC":
            let curveName = try reader.requiredString("crv")
            guard let curve = EllipticCurve(jwkName: curveName) else {
                throw JOSEError(.keyUnsupported, "unsupported EC curve '\(curveName)'")
            }
            let size = curve.coordinateByteCount
            let x = try reader.fixedLengthBytes("x", count: size, what: "\(curve.jwkName) coordinate")
            let y = try reader.fixedLengthBytes("y", count: size, what: "\(curve.jwkName) coordinate")
            let d = try reader.optionalFixedLengthBytes("d", count: size, what: "\(curve.jwkName) private key")
            let key = try JOSEError.mapping { () throws(CryptoError) in try ECKey(curve: curve, x: x, y: y, d: d) }
            type = .ec(curve)
            material = .asymmetric(.ec(key))
            isPrivate = d != nil
            bits = key.bits
        case "OKP":
            let curveName = try reader.requiredString("crv")
            guard let curve = OctetKeyCurve.exactly(curveName) else {
                throw JOSEError(.keyUnsupported, "unsupported OKP curve '\(curveName)'")
            }
            let x = try reader.fixedLengthBytes("x", count: curve.keyByteCount, what: "\(curve.rawValue) public key")
            let d = try reader.optionalFixedLengthBytes("d", count: curve.keyByteCount, what: "\(curve.rawValue) private key")
            material = .asymmetric(.okp(try JOSEError.mapping { () throws(CryptoError) in try OKPKey(curve: curve, publicKey: x, privateKey: d) }))
            type = .okp(curve)
            isPrivate = d != nil
            bits = curve.keyByteCount * 8
        case "oct":
            let secret = try reader.bytes("k")
            type = .oct
            material = .secret(secret)
            isPrivate = true
            bits = secret.count * 8
        default:
            throw JOSEError(.keyUnsupported, "unsupported key type (kty) '\(kty)'")
        }

        members = Members(Usage(kid: kid, use: use, keyOperations: keyOperations, algorithm: algorithm, type: type, material: material),
                          isPrivate: isPrivate, bits: bits, certificateChain: try JWK.loadCertificates(reader, material: material))
    }

    /// Wraps a key read from PEM, DER or a certificate. Such keys carry no `kid`, `use` or `alg`
    /// unless given here.
    package init(key: AsymmetricKey, kid: String? = nil, use: String? = nil, algorithm: String? = nil, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        let type: KeyType
        switch key {
        case let .rsa(rsa):
            type = .rsa
            try JWK.checkRSAStrength(modulus: rsa.modulus, exponent: rsa.publicExponent, options: options)
        case let .ec(ec):
            type = .ec(ec.curve)
        case let .okp(okp):
            type = .okp(okp.curve)
        }
        members = Members(Usage(kid: kid, use: use, keyOperations: nil, algorithm: algorithm, type: type, material: .asymmetric(key)),
                          isPrivate: key.isPrivate, bits: key.bits, certificateChain: [])
    }

    /// An HMAC (or AES) secret; HMAC use still requires at least the hash's length.
    package init(secret: [UInt8], kid: String? = nil, algorithm: String? = nil) {
        members = Members(Usage(kid: kid, use: nil, keyOperations: nil, algorithm: algorithm, type: .oct, material: .secret(secret)),
                          isPrivate: true, bits: secret.count * 8, certificateChain: [])
    }

    /// Reads a PEM public key, certificate or private key.
    package init(pem: String, kid: String? = nil, use: String? = nil, algorithm: String? = nil, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        try self.init(key: JOSEError.mapping { () throws(CryptoError) in try AsymmetricKey(pem: pem) }, kid: kid, use: use, algorithm: algorithm, options: options)
    }

    /// Reads a DER SubjectPublicKeyInfo.
    package init(publicKeyDER der: [UInt8], kid: String? = nil, algorithm: String? = nil, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        try self.init(key: JOSEError.mapping { () throws(CryptoError) in try AsymmetricKey(publicKeyDER: der) }, kid: kid, algorithm: algorithm, options: options)
    }

    /// Reads a DER private key (PKCS#8, or traditional RSA or EC).
    package init(privateKeyDER der: [UInt8], kid: String? = nil, algorithm: String? = nil, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        try self.init(key: JOSEError.mapping { () throws(CryptoError) in try AsymmetricKey(privateKeyDER: der) }, kid: kid, algorithm: algorithm, options: options)
    }

    // MARK: - Using the key

    /// The JWS algorithms this key can verify.
    package var verifiableAlgorithms: [JWSAlgorithm] { members.algorithms }

    /// Whether this key can verify `algorithm`; allocation-free, for per-token key selection.
    package func canVerify(_ algorithm: JWSAlgorithm) -> Bool {
        members.algorithms.contains(algorithm)
    }

    /// Whether `signature` is valid over `message` for `algorithm`, or an error saying why this
    /// key cannot serve it: `verifier(for:)` and its check in one call, made by the object that
    /// holds the verifiers.
    package func verify(_ signature: UnsafeRawBufferPointer, over message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) throws(JOSEError) -> Bool {
        if let verified = members.verify(signature, over: message, algorithm: algorithm) { return verified }
        throw restriction(for: algorithm, operation: "verify") ?? JOSEError(.keyMismatch, "the key cannot verify \(algorithm.rawValue)")
    }

    /// The prepared verifier for `algorithm`, or an error saying why this key cannot serve it.
    package func verifier(for algorithm: JWSAlgorithm) throws(JOSEError) -> any SignatureVerifier {
        if let index = members.algorithms.firstIndex(of: algorithm) { return members.verifiers[index].verifier }
        throw restriction(for: algorithm, operation: "verify") ?? JOSEError(.keyMismatch, "the key cannot verify \(algorithm.rawValue)")
    }

    /// Whether `signature` is valid over `message` for `algorithm` with this key.
    package func verify(signature: [UInt8], message: [UInt8], algorithm: JWSAlgorithm) throws(JOSEError) -> Bool {
        try verifier(for: algorithm).verify(signature: signature, message: message)
    }

    /// Signs `message`; needs a private key (or secret) permitted for `algorithm` and `sign`.
    package func sign(_ message: [UInt8], algorithm: JWSAlgorithm) throws(JOSEError) -> [UInt8] {
        if let problem = restriction(for: algorithm, operation: "sign") { throw problem }
        guard isPrivate else { throw JOSEError(.keyMismatch, "signing needs a private key") }
        switch material {
        case let .asymmetric(key):
            guard let scheme = algorithm.scheme(okpCurve: okpCurve) else {
                throw JOSEError(.keyMismatch, "the key cannot sign \(algorithm.rawValue)")
            }
            return try JOSEError.mapping { () throws(CryptoError) in try key.signer(for: scheme).sign(message) }
        case let .secret(secret):
            guard case let .hmac(digest) = algorithm.scheme() else { throw JOSEError(.keyMismatch, "an oct key signs only HS256/384/512") }
            return try JOSEError.mapping { () throws(CryptoError) in try HMACKey(secret: secret, digest: digest).sign(message) }
        }
    }

    private var okpCurve: OctetKeyCurve? { Self.okpCurve(of: type) }

    private static func okpCurve(of type: KeyType) -> OctetKeyCurve? {
        if case let .okp(curve) = type { return curve }
        return nil
    }

    /// Why this key may not perform `operation` with `algorithm`, or nil when it may.
    func restriction(for algorithm: JWSAlgorithm, operation: String) -> JOSEError? {
        members.usage.restriction(for: algorithm, operation: operation)
    }

    /// What a key is and what its members allow it: its `kid`, `use`, `key_ops`, `alg`, type and
    /// material, which decide what it may verify or sign.
    private struct Usage: Sendable {
        let kid: String?
        let use: String?
        let keyOperations: [String]?
        let algorithm: String?
        let type: KeyType
        let material: Material

        func restriction(for algorithm: JWSAlgorithm, operation: String) -> JOSEError? {
            let name = kid.map { "key '\($0)'" } ?? "the key"
            if let use, use != "sig" {
                return JOSEError(.keyMismatch, "\(name) has use '\(use)', not 'sig'")
            }
            if let keyOperations, !keyOperations.contains(operation) {
                return JOSEError(.keyMismatch, "\(name) has key_ops \(keyOperations), without '\(operation)'")
            }
            if let restricted = self.algorithm, restricted != algorithm.rawValue {
                return JOSEError(.keyMismatch, "\(name) is restricted to alg '\(restricted)', not \(algorithm.rawValue)")
            }
            switch (algorithm.scheme(okpCurve: JWK.okpCurve(of: type)), type) {
            case (.rsaPKCS1?, .rsa), (.rsaPSS?, .rsa), (.eddsa?, .okp):
                return nil
            case let (.ecdsa(curve, _)?, .ec(keyCurve)) where curve == keyCurve:
                return nil
            case let (.hmac(digest)?, .oct):
                let length: Int
                if case let .secret(bytes) = material { length = bytes.count } else { length = 0 }
                return length >= digest.byteCount ? nil
                    : JOSEError(.keyTooWeak, "\(name) has a \(length)-byte secret; \(algorithm.rawValue) needs at least \(digest.byteCount) bytes (RFC 7518 §3.2)")
            default:
                return JOSEError(.keyMismatch, "\(name) is a \(type) key and cannot \(operation) \(algorithm.rawValue)")
            }
        }
    }

    // MARK: - Loading helpers

    private static func loadRSA(_ reader: JWKMemberReader, options: KeyLoadingOptions) throws(JOSEError) -> RSAKey {
        let n = try reader.unsignedInteger("n")
        let e = try reader.unsignedInteger("e")
        try checkRSAStrength(modulus: n, exponent: e, options: options)
        guard reader.has("d") else { return try JOSEError.mapping { () throws(CryptoError) in try RSAKey(modulus: n, exponent: e) } }
        if reader.has("oth") {
            throw JOSEError(.keyUnsupported, "multi-prime RSA keys (oth) are not supported")
        }
        var parts = [try reader.bytes("d")]
        let crtNames = ["p", "q", "dp", "dq", "qi"]
        let present = crtNames.filter { reader.has($0) }
        if present.count == crtNames.count {
            for name in crtNames { parts.append(try reader.bytes(name)) }
        } else if !present.isEmpty {
            throw JOSEError(.keyInvalid, "RSA private key has some CRT parameters (\(present.joined(separator: ", "))) but not all of p, q, dp, dq, qi")
        }
        return try JOSEError.mapping { () throws(CryptoError) in try RSAKey(modulus: n, exponent: e, privateParts: parts) }
    }

    static func checkRSAStrength(modulus n: [UInt8], exponent e: [UInt8], options: KeyLoadingOptions) throws(JOSEError) {
        let exponentIsSmall = e.count == 1 && e[0] < 3
        guard !exponentIsSmall, e.last.map({ $0 & 1 == 1 }) ?? false else {
            throw JOSEError(.keyInvalid, "RSA public exponent must be odd and at least 3")
        }
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n[0].leadingZeroBitCount)
        guard bits >= options.minimumRSABits else {
            throw JOSEError(.keyTooWeak, "RSA modulus of \(bits) bits is below the minimum of \(options.minimumRSABits) (min_rsa_bits)")
        }
        guard !ROCAFingerprint.matches(modulus: n) else {
            throw JOSEError(.keyTooWeak, "RSA modulus has the ROCA fingerprint (CVE-2017-15361) and can be factored; replace the key")
        }
    }

    private static func loadCertificates(_ reader: JWKMemberReader, material: Material) throws(JOSEError) -> [X509Certificate] {
        guard let entries = try reader.optionalStringArray("x5c") else { return [] }
        guard !entries.isEmpty else { throw JOSEError(.keyInvalid, "x5c must not be empty") }
        var chain: [X509Certificate] = []
        for entry in entries {
            let der = try StandardBase64.decode(entry)
            chain.append(try JOSEError.mapping { () throws(CryptoError) in try X509Certificate(der: der) })
        }
        let leafKey = try JOSEError.mapping { () throws(CryptoError) in try chain[0].subjectPublicKey() }
        let matches: Bool
        switch material {
        case let .asymmetric(key): matches = leafKey.hasSamePublicKey(as: key)
        case .secret: matches = false
        }
        guard matches else {
            throw JOSEError(.keyInvalid, "the first x5c certificate holds a different key than the JWK (RFC 7517 §4.7)")
        }
        return chain
    }

    /// A verifier for every algorithm this key is permitted to verify; run once, at load.
    private static func prepareVerifiers(_ usage: Usage) -> [PreparedVerifier] {
        var prepared: [PreparedVerifier] = []
        for candidate in JWSAlgorithm.allCases where usage.restriction(for: candidate, operation: "verify") == nil {
            let verifier: (any SignatureVerifier)?
            switch (usage.material, candidate.scheme(okpCurve: okpCurve(of: usage.type))) {
            case let (.asymmetric(key), scheme?):
                verifier = try? key.verifier(for: scheme)
            case let (.secret(secret), .hmac(digest)?):
                verifier = try? HMACKey(secret: secret, digest: digest)
            default:
                verifier = nil
            }
            if let verifier { prepared.append(PreparedVerifier(algorithm: candidate, verifier: verifier)) }
        }
        return prepared
    }
}

/// Typed access to a JWK's members with messages that name the member.
struct JWKMemberReader {
    let object: JSONObject

    func has(_ name: String) -> Bool { object[name] != nil }

    func requiredString(_ name: String) throws(JOSEError) -> String {
        guard let value = object[name] else { throw JOSEError(.keyInvalid, "JWK is missing '\(name)'") }
        guard case let .string(text) = value else { throw JOSEError(.keyInvalid, "JWK member '\(name)' must be a string, found \(value.typeName)") }
        return text
    }

    func optionalString(_ name: String) throws(JOSEError) -> String? {
        guard object[name] != nil else { return nil }
        return try requiredString(name)
    }

    func optionalStringArray(_ name: String) throws(JOSEError) -> [String]? {
        guard let value = object[name] else { return nil }
        guard case let .array(elements) = value else { throw JOSEError(.keyInvalid, "JWK member '\(name)' must be an array of strings") }
        var strings: [String] = []
        for element in elements {
            guard case let .string(text) = element else { throw JOSEError(.keyInvalid, "JWK member '\(name)' must be an array of strings") }
            strings.append(text)
        }
        return strings
    }

    func bytes(_ name: String) throws(JOSEError) -> [UInt8] {
        let text = try requiredString(name)
        do {
            return try Base64URL.decode(text)
        } catch {
            throw JOSEError(.keyInvalid, "JWK member '\(name)': \(error.message)")
        }
    }

    /// A Base64urlUInt (RFC 7518 §2): non-empty and without leading zero bytes.
    func unsignedInteger(_ name: String) throws(JOSEError) -> [UInt8] {
        let value = try bytes(name)
        guard !value.isEmpty else { throw JOSEError(.keyInvalid, "JWK member '\(name)' is empty") }
        guard value[0] != 0 || value.count == 1 else {
            throw JOSEError(.keyInvalid, "JWK member '\(name)' has a leading zero byte (not the minimal encoding RFC 7518 §2 requires)")
        }
        return value
    }

    func fixedLengthBytes(_ name: String, count: Int, what: String) throws(JOSEError) -> [UInt8] {
        let value = try bytes(name)
        guard value.count == count else {
            throw JOSEError(.keyInvalid, "JWK member '\(name)' must be \(count) bytes for a \(what), found \(value.count)")
        }
        return value
    }

    func optionalFixedLengthBytes(_ name: String, count: Int, what: String) throws(JOSEError) -> [UInt8]? {
        guard has(name) else { return nil }
        return try fixedLengthBytes(name, count: count, what: what)
    }
}
