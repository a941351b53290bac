@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// What `policy-run encrypt` does: a plaintext request with every `encrypted_fields` field
/// replaced by a JWE made with the policy's key (compact, or a flattened JSON serialization),
/// so that the same policy passes it.
///
/// It uses the first allowed `alg` and `enc` of the policy (RSA-OAEP-256 and A256GCM unless the
/// policy says otherwise) and puts the server nonce in the protected header when the policy
/// names one. Errors name fields, never their values.
package struct RequestEncryptor: Sendable {
    package let settings: EncryptedFieldSettings
    package let fields: [ClaimPath]

    /// The encryptor for `policy`'s `encrypted_fields`; throws when the policy has none, or no
    /// key to encrypt with.
    package init(policy: Policy) throws(RequestEncryptionError) {
        let rules = policy.root.rules.compactMap { $0.rule as? EncryptedFieldsRule }
        guard let first = rules.first else {
            throw RequestEncryptionError("policy \(policy.name) has no request.encrypted_fields section to encrypt for")
        }
        guard first.settings.keys != nil else {
            throw RequestEncryptionError("policy \(policy.name)'s encrypted_fields names no key; add key: {pem_file: …} with the public key to encrypt to")
        }
        settings = first.settings
        fields = rules.map(\.field)
    }

    /// How an encrypted field is written.
    package enum Serialization: String, Sendable, CaseIterable {
        /// A compact JWE string (RFC 7516 §7.1).
        case compact
        /// A flattened JWE JSON serialization object (RFC 7516 §7.2.2).
        case flattened
    }

    /// The request document (`{method, url, headers, body}`) with its listed body fields
    /// encrypted, each written in `serialization`; a body sent as JSON text stays text.
    package func encrypt(request: JSONObject, inputs: [String: JSONValue], serialization: Serialization = .compact) throws(RequestEncryptionError) -> JSONObject {
        var header = JSONObject()
        if let nonce = settings.nonce {
            guard let value = nonce.resolve(inputs)?.stringValue else {
                throw RequestEncryptionError("the policy binds fields to a nonce: supply \(nonce.inputNames.map { "--var \($0)=…" }.joined(separator: " "))")
            }
            header.set("nonce", .string(value))
        }
        var body: JSONObject
        var bodyIsText = false
        switch request["body"] {
        case let .object(object)?:
            body = object
        case let .string(text)?:
            guard case let .object(object)? = try? JSONParser().parse(Array(text.utf8)) else {
                throw RequestEncryptionError("the request body is not a JSON object")
            }
            body = object
            bodyIsText = true
        default:
            throw RequestEncryptionError("the request has no JSON object body to encrypt fields in")
        }
        guard let key = settings.keys?.keys.first else { throw RequestEncryptionError("the policy names no key") }
        for field in fields {
            guard let value = field.value(in: body) else {
                if settings.required { throw RequestEncryptionError("the request body has no field \(field), which the policy requires") }
                continue
            }
            let plaintext: [UInt8]
            if case let .string(text) = value { plaintext = Array(text.utf8) } else { plaintext = value.serializedBytes() }
            do {
                let jwe = try CompactJWE.encrypt(plaintext, to: key, keyAlgorithm: settings.keyAlgorithms[0],
                                                 contentEncryption: settings.contentEncryptions[0], header: header)
                body = body.setting(field.segments[...], to: serialization == .compact ? .string(jwe) : .object(JSONSerializedJWE.flattened(jwe)))
            } catch {
                throw RequestEncryptionError("field \(field) could not be encrypted: \(error.message)")
            }
        }
        var result = request
        result.set("body", bodyIsText ? .string(String(decoding: JSONValue.object(body).serializedBytes(), as: UTF8.self)) : .object(body))
        return result
    }
}

/// Why a request could not be encrypted for a policy.
package struct RequestEncryptionError: Error, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
