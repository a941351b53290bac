internal import PolicyCrypto
/// A JWE in compact serialization (RFC 7516 §7.1), split and decoded once.
///
/// Parsing refuses what the engine never processes: RSA1_5 and PBES2 (`unsupported_algorithm`),
/// `zip` (no decompression bombs) and malformed `crit`. Decryption checks every length the
/// algorithms fix (IV, tag, encrypted key), refuses an ephemeral key that is not on the
/// recipient's curve, and fails every problem after key selection with one `decryption_failed`,
/// so failures do not reveal which step broke.
package struct CompactJWE: Sendable {
    /// The header: in the compact serialization the protected header; in a JSON serialization
    /// (`JSONSerializedJWE`) the protected, shared and recipient headers together, which key
    /// management reads.
    package let header: JOSEHeader
    /// The integrity-protected header, which rules read: `header` in the compact serialization.
    package let protectedHeader: JOSEHeader
    /// The key-management algorithm.
    package let keyAlgorithm: JWEKeyAlgorithm
    /// The content-encryption algorithm.
    package let contentEncryption: JWEContentEncryption
    package let encryptedKey: [UInt8]
    package let initializationVector: [UInt8]
    package let ciphertext: [UInt8]
    package let authenticationTag: [UInt8]
    /// `ASCII(BASE64URL(protected header))`, the additional authenticated data.
    package let additionalData: [UInt8]

    /// Parses a compact JWE from text.
    package init(_ token: some StringProtocol, limits: TokenLimits = .standard) throws(JOSEError) {
        self = try ContiguousBytes.with(token.utf8) { buffer throws(JOSEError) in try CompactJWE(buffer, limits: limits) }
    }

    /// Parses a compact JWE from its ASCII bytes.
    package init(_ bytes: UnsafeBufferPointer<UInt8>, limits: TokenLimits = .standard) throws(JOSEError) {
        let (dots, header) = try CompactSerialization.split(bytes, parts: 5, what: "JWE", limits: limits)
        try self.init(header: header, protectedHeader: header,
                      encryptedKey: CompactSerialization.decode(bytes, dots[0] + 1..<dots[1], part: "encrypted key"),
                      initializationVector: CompactSerialization.decode(bytes, dots[1] + 1..<dots[2], part: "IV"),
                      ciphertext: CompactSerialization.decode(bytes, dots[2] + 1..<dots[3], part: "ciphertext"),
                      authenticationTag: CompactSerialization.decode(bytes, dots[3] + 1..<bytes.count, part: "tag"),
                      additionalData: Array(bytes[0..<dots[0]]))
    }

    /// A JWE from its decoded parts: one recipient of a JSON serialization, or a compact JWE.
    init(header: JOSEHeader, protectedHeader: JOSEHeader, encryptedKey: [UInt8], initializationVector: [UInt8], ciphertext: [UInt8],
         authenticationTag: [UInt8], additionalData: [UInt8]) throws(JOSEError) {
        self.header = header
        self.protectedHeader = protectedHeader
        let object = header.object
        keyAlgorithm = try JWEKeyAlgorithm(name: header.algorithmName)
        guard let enc = object["enc"] else { throw JOSEError(.invalidHeader, "the JWE header has no 'enc'") }
        guard case let .string(encName) = enc else { throw JOSEError(.invalidHeader, "header 'enc' must be a string") }
        contentEncryption = try JWEContentEncryption(name: encName)
        if object["zip"] != nil {
            throw JOSEError(.unsupportedHeader, "compressed JWE payloads (zip) are refused: decompression is a denial-of-service risk")
        }
        self.encryptedKey = encryptedKey
        self.initializationVector = initializationVector
        self.ciphertext = ciphertext
        self.authenticationTag = authenticationTag
        self.additionalData = additionalData
    }

    /// Why the parts cannot belong to this `alg` and `enc`, checked without a key: the IV and
    /// tag lengths the content encryption requires, and an encrypted key that is empty exactly
    /// when the key management puts none there (`dir`, `ECDH-ES`). Nil when the shape fits.
    package var shapeProblem: String? {
        guard initializationVector.count == contentEncryption.ivByteCount else {
            return "\(contentEncryption.rawValue) needs a \(contentEncryption.ivByteCount)-byte IV, found \(initializationVector.count)"
        }
        guard authenticationTag.count == contentEncryption.tagByteCount else {
            return "\(contentEncryption.rawValue) needs a \(contentEncryption.tagByteCount)-byte tag, found \(authenticationTag.count)"
        }
        guard !ciphertext.isEmpty || contentEncryption.isGCM else { return "the ciphertext is empty, which CBC never produces" }
        switch keyAlgorithm {
        case .direct, .ecdhES:
            guard encryptedKey.isEmpty else { return "\(keyAlgorithm.rawValue) carries no encrypted key, found \(encryptedKey.count) bytes" }
        case .a128KW, .a192KW, .a256KW, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW:
            let expected = contentEncryption.keyByteCount + 8
            guard encryptedKey.count == expected else { return "\(keyAlgorithm.rawValue) wraps the content key into \(expected) bytes, found \(encryptedKey.count)" }
        case .a128GCMKW, .a192GCMKW, .a256GCMKW:
            guard encryptedKey.count == contentEncryption.keyByteCount else {
                return "\(keyAlgorithm.rawValue) encrypts the content key into \(contentEncryption.keyByteCount) bytes, found \(encryptedKey.count)"
            }
        case .rsaOAEP, .rsaOAEP256:
            guard encryptedKey.count >= 256 else { return "\(keyAlgorithm.rawValue) needs an encrypted key as long as an RSA-2048 modulus at least, found \(encryptedKey.count) bytes" }
        }
        return nil
    }

    /// Decrypts with `key`. `understoodCritical` lists the `crit` extensions the caller processes.
    package func decrypt(with key: JWK, understoodCritical: Set<String> = []) throws(JOSEError) -> [UInt8] {
        if let unknown = header.critical.first(where: { !understoodCritical.contains($0) }) {
            throw JOSEError(.critUnsupported, "the JWE marks '\(unknown)' critical, and it is not understood")
        }
        if let problem = key.encryptionRestriction(for: keyAlgorithm, contentEncryption: contentEncryption, decrypting: true) { throw problem }
        guard initializationVector.count == contentEncryption.ivByteCount else {
            throw JOSEError(.decryptionFailed, "\(contentEncryption.rawValue) needs a \(contentEncryption.ivByteCount)-byte IV, found \(initializationVector.count)")
        }
        guard authenticationTag.count == contentEncryption.tagByteCount else {
            throw JOSEError(.decryptionFailed, "\(contentEncryption.rawValue) needs a \(contentEncryption.tagByteCount)-byte tag, found \(authenticationTag.count)")
        }
        // RFC 7516 §11.5: once a key is chosen, every failure to unwrap or open reads the same,
        // so no message or code tells a padding error from a bad length or a bad tag.
        do {
            let contentKey = try JWEKeyManagement.unwrapContentKey(for: self, with: key)
            return try JWEContentCipher.open(self, contentKey: contentKey)
        } catch where error.code == .decryptionFailed || error.code == .cryptoFailure {
            throw JOSEError(.decryptionFailed, Self.uniformFailure)
        }
    }

    /// The one message of every decryption failure after key selection.
    package static let uniformFailure = "the JWE does not decrypt with this key (altered, or for another key)"

    /// Decrypts with the key of `keys` this JWE is for: the one named by `kid` when the header
    /// has one, otherwise each key that may serve the algorithm in turn.
    package func decrypt(with keys: JWKSet, understoodCritical: Set<String> = []) throws(JOSEError) -> [UInt8] {
        let candidates: [JWK]
        if let kid = header.kid {
            candidates = keys.keys.filter { $0.kid?.isExactly(kid) == true }
            guard !candidates.isEmpty else { throw JOSEError(.keyNotFound, "no key with kid '\(kid)'") }
        } else {
            candidates = keys.keys.filter { $0.encryptionRestriction(for: keyAlgorithm, contentEncryption: contentEncryption, decrypting: true) == nil }
            guard !candidates.isEmpty else { throw JOSEError(.keyNotFound, "no key in the set can decrypt \(keyAlgorithm.rawValue)") }
        }
        var lastError = JOSEError(.keyNotFound, "no key could decrypt the JWE")
        for key in candidates {
            do {
                return try decrypt(with: key, understoodCritical: understoodCritical)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Encrypts `plaintext` to `key` and returns the compact serialization.
    ///
    /// `header` holds extra protected parameters (a `kid`, a server `nonce`); `alg`, `enc` and
    /// the algorithm's own parameters (`epk`, `iv`, `tag`) are set here.
    package static func encrypt(
        _ plaintext: [UInt8], to key: JWK, keyAlgorithm: JWEKeyAlgorithm,
        contentEncryption: JWEContentEncryption, header extra: JSONObject = JSONObject()
    ) throws(JOSEError) -> String {
        // Before drawing the random values: an ephemeral key is drawn like the recipient's.
        if let problem = key.encryptionRestriction(for: keyAlgorithm, contentEncryption: contentEncryption, decrypting: false) { throw problem }
        return try encrypt(plaintext, to: key, keyAlgorithm: keyAlgorithm, contentEncryption: contentEncryption, header: extra,
                    randomness: JWERandomness.fresh(for: keyAlgorithm, contentEncryption: contentEncryption, to: key))
    }

    /// `encrypt` with its random values given, so that a test can reproduce a vector made elsewhere.
    static func encrypt(
        _ plaintext: [UInt8], to key: JWK, keyAlgorithm: JWEKeyAlgorithm,
        contentEncryption: JWEContentEncryption, header extra: JSONObject, randomness: JWERandomness
    ) throws(JOSEError) -> String {
        if let problem = key.encryptionRestriction(for: keyAlgorithm, contentEncryption: contentEncryption, decrypting: false) { throw problem }
        var header = JSONObject([
            "alg": .string(keyAlgorithm.rawValue),
            "enc": .string(contentEncryption.rawValue)])
        if let kid = key.kid { header.set("kid", .string(kid)) }
        for member in extra.members where !["alg", "enc", "zip"].contains(member.name) {
            header.set(member.name, member.value)
        }
        let wrapped = try JWEKeyManagement.wrapContentKey(for: keyAlgorithm, contentEncryption: contentEncryption, to: key, randomness: randomness,
                                                          header: &header)
        let headerText = Base64URL.encodeBytes(JSONValue.object(header).serializedBytes())
        let iv = randomness.iv
        let sealed = try JWEContentCipher.seal(plaintext, contentKey: wrapped.contentKey, iv: iv, additionalData: headerText, encryption: contentEncryption)
        return [headerText, Base64URL.encodeBytes(wrapped.encryptedKey), Base64URL.encodeBytes(iv),
                Base64URL.encodeBytes(sealed.ciphertext), Base64URL.encodeBytes(sealed.tag)]
            .map { String(decoding: $0, as: UTF8.self) }
            .joined(separator: ".")
    }
}
