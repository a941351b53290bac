@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// The `encrypted_fields` settings a section's field rules share, and `policy-run encrypt` reads.
package struct EncryptedFieldSettings: Sendable {
    /// Allowed JWE key management, in policy order; `encrypt` uses the first.
    package let keyAlgorithms: [JWEKeyAlgorithm]
    /// Allowed content encryption, in policy order; `encrypt` uses the first.
    package let contentEncryptions: [JWEContentEncryption]
    /// Whether a listed field must be present.
    package let required: Bool
    /// The server nonce the protected header must carry, when set.
    package let nonce: PolicyValue?
    /// The policy's key: public keys encrypt, private keys also decrypt.
    package let keys: JWKSet?
    package let keyDescription: String?

    /// The private keys, when the policy's key can decrypt: then the check opens each field.
    var decryptionKeys: JWKSet? {
        guard let keys, keys.keys.allSatisfy(\.isPrivate) else { return nil }
        return keys
    }

    /// What a field holds, as the field rules see it.
    enum Envelope {
        case absent
        case jwe(CompactJWE)
        /// Not usable; the outcome says why.
        case unusable(RuleOutcome)
    }

    func envelope(of field: ClaimPath, in request: RequestSubject) -> Envelope {
        let body: JSONObject
        switch request.jsonBody {
        case let .object(object): body = object
        case .absent: return .absent
        case .reported: return .unusable(.blocked("the body is not usable (see request.structure)"))
        case let .unusable(message): return .unusable(.fail(.bodyNotJSON, FindingMessage(message)))
        }
        guard let value = field.value(in: body) else { return .absent }
        let jwe: CompactJWE
        do {
            switch value {
            case let .string(text): jwe = try CompactJWE(text)
            case .object: jwe = recipient(of: try JSONSerializedJWE.recipients(String(decoding: value.serializedBytes(), as: UTF8.self), limits: .standard))
            default: return .unusable(.fail(.fieldNotEncrypted, "field \(field) is \(value.typeName), not a JWE"))
            }
        } catch {
            let code: FindingCode = error.code == .unsupportedAlgorithm ? .encryptionNotAllowed : .fieldNotEncrypted
            return .unusable(.fail(code, "field \(field) is not an acceptable \(value.typeName == "string" ? "compact JWE" : "JWE JSON serialization"): \(error.message)"))
        }
        guard keyAlgorithms.contains(jwe.keyAlgorithm) else {
            return .unusable(.fail(.encryptionNotAllowed, "field \(field) uses alg \(jwe.keyAlgorithm.rawValue); the policy allows \(keyAlgorithms.map(\.rawValue).joined(separator: ", "))"))
        }
        guard contentEncryptions.contains(jwe.contentEncryption) else {
            return .unusable(.fail(.encryptionNotAllowed, "field \(field) uses enc \(jwe.contentEncryption.rawValue); the policy allows \(contentEncryptions.map(\.rawValue).joined(separator: ", "))"))
        }
        if let critical = jwe.header.critical.first {
            return .unusable(.fail(.critUnsupported, "field \(field)'s JWE marks '\(critical)' critical, which is not understood"))
        }
        if let problem = jwe.shapeProblem {
            return .unusable(.fail(.fieldNotEncrypted, "field \(field)'s JWE does not have the shape of \(jwe.keyAlgorithm.rawValue)/\(jwe.contentEncryption.rawValue): \(problem)"))
        }
        return .jwe(jwe)
    }
}

extension EncryptedFieldSettings {
    /// The recipient of a JSON-serialized JWE meant for the policy: the first whose algorithms
    /// the policy allows and whose `kid`, if any, names a policy key; otherwise the first, so the
    /// checks say why it is not acceptable.
    func recipient(of recipients: [CompactJWE]) -> CompactJWE {
        recipients.first { jwe in
            keyAlgorithms.contains(jwe.keyAlgorithm) && contentEncryptions.contains(jwe.contentEncryption)
                && (jwe.header.kid.map { kid in keys?.keys.contains { $0.kid?.isExactly(kid) == true } ?? true } ?? true)
        } ?? recipients[0]
    }
}

extension RuleCompiler {
    static let encryptedFieldKeys = ["fields", "algorithms", "encryption", "required", "nonce", "key"]

    /// Reads `encrypted_fields`; the fields come back with where each is written.
    mutating func encryptedFieldSettings(_ node: YAMLNode) -> (EncryptedFieldSettings, [(ClaimPath, SourceLocation)])? {
        guard mapping(node, allowed: Self.encryptedFieldKeys, what: "'encrypted_fields'") != nil else { return nil }
        guard let fieldsNode = node["fields"] else {
            error(.missingKey, "'encrypted_fields' needs 'fields': the dotted paths of the body fields that must be encrypted", at: node)
            return nil
        }
        guard let names = literalStrings(fieldsNode, what: "'fields'"), !names.isEmpty else {
            if fieldsNode.items?.isEmpty == true { error(.invalidValue, "'fields' must list at least one field", at: fieldsNode) }
            return nil
        }
        var fields: [(ClaimPath, SourceLocation)] = []
        for (index, name) in names.enumerated() {
            let item = fieldsNode.items?[index] ?? fieldsNode
            guard let path = claimPath(name, at: item) else { return nil }
            fields.append((path, item.location))
        }
        let keyAlgorithms = node["algorithms"].map { jweNames($0, what: "'algorithms'") { name throws(JOSEError) in try JWEKeyAlgorithm(name: name) } } ?? [.rsaOAEP256]
        let encryptions = node["encryption"].map { jweNames($0, what: "'encryption'") { name throws(JOSEError) in try JWEContentEncryption(name: name) } } ?? [.a256GCM]
        let required = node["required"].flatMap { bool($0, what: "'required'") } ?? true
        let nonce = node["nonce"].flatMap { stringValue($0, what: "'nonce'") }
        var keys: JWKSet?
        var keyDescription: String?
        if let keyNode = node["key"] {
            guard let source = keySource(keyNode, what: "'encrypted_fields.key'", purpose: .encryption), let set = source.localKeys else { return nil }
            guard let keyAlgorithms, let encryptions else { return nil }
            for key in set.keys {
                let decrypting = key.isPrivate
                for algorithm in keyAlgorithms {
                    if let problem = key.encryptionRestriction(for: algorithm, contentEncryption: encryptions.first, decrypting: decrypting) {
                        error(.keySource, "\(source.description) cannot \(decrypting ? "decrypt" : "encrypt") with \(algorithm.rawValue): \(problem.message)", at: keyNode,
                              hint: "list only the algorithms this key serves, or name a key for them")
                        return nil
                    }
                }
            }
            keys = set
            keyDescription = source.description
        }
        guard let keyAlgorithms, let encryptions else { return nil }
        return (EncryptedFieldSettings(keyAlgorithms: keyAlgorithms, contentEncryptions: encryptions, required: required, nonce: nonce,
                                       keys: keys, keyDescription: keyDescription), fields)
    }

    /// A non-empty list of JWE algorithm names.
    private mutating func jweNames<T>(_ node: YAMLNode, what: String, _ parse: (String) throws(JOSEError) -> T) -> [T]? {
        guard let names = literalStrings(node, what: what) else { return nil }
        guard !names.isEmpty else {
            error(.invalidValue, "\(what) must list at least one algorithm", at: node)
            return nil
        }
        var values: [T] = []
        for (index, name) in names.enumerated() {
            do { values.append(try parse(name)) } catch {
                self.error(.invalidValue, "\(what): \(error.message)", at: node.items?[index] ?? node)
                return nil
            }
        }
        return values
    }
}
