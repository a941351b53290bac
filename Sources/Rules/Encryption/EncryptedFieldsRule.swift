@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `encrypted_fields`: each listed field of the JSON body holds a compact JWE with an allowed
/// `alg` and `enc`, no `crit`, parts of the lengths those algorithms require, and — with a
/// private key — content that decrypts. One rule per field; a `nonce` adds a second rule per
/// field, so an absent nonce input skips only the nonce check, visibly.
///
/// Plaintext never reaches a finding, a trace or a log: messages name the field and the
/// problem, never the value.
struct EncryptedFieldsRule: Rule {
    static let key = "encrypted_fields"
    static let summary = "listed body fields are compact JWEs with allowed alg/enc (and decrypt, given a private key)"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.fieldMissing, .bodyNotJSON, .fieldNotEncrypted, .encryptionNotAllowed, .critUnsupported, .decryptionFailed]
    static let argumentShape: ArgumentShape = .mapping([
        ("fields", .strings, "the dotted paths of the body fields that must be compact JWEs"),
        ("algorithms", .someOf(JWEKeyAlgorithm.allCases.map(\.rawValue)), "allowed JWE alg values (default RSA-OAEP-256)"),
        ("encryption", .someOf(JWEContentEncryption.allCases.map(\.rawValue)), "allowed JWE enc values (default A256GCM)"),
        ("required", .boolean, "whether each field must be present (default true)"),
        ("nonce", .string, "the value each field's JWE protected header must carry as nonce"),
        ("key", .keySource, "the key the fields are encrypted to; a private key also proves they decrypt"),
    ], required: ["fields"])

    let field: ClaimPath
    let settings: EncryptedFieldSettings

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let (settings, fields) = compiler.encryptedFieldSettings(node) else { return [] }
        return fields.flatMap { field, location in
            var rules = [compiler.finish(EncryptedFieldsRule(field: field, settings: settings), id: field.description, at: location, inputs: [])]
            if let nonce = settings.nonce {
                rules.append(compiler.finish(EncryptedFieldNonceRule(field: field, nonce: nonce, settings: settings), id: "\(field).nonce", at: location,
                                             inputs: nonce.inputNames))
            }
            return rules
        }
    }

    var explanation: String {
        "body field \(field) is a compact JWE (alg \(settings.keyAlgorithms.map(\.rawValue).joined(separator: ", ")); "
            + "enc \(settings.contentEncryptions.map(\.rawValue).joined(separator: ", ")))"
            + (settings.required ? "" : " when present")
            + (settings.decryptionKeys != nil ? " that decrypts with \(settings.keyDescription ?? "the policy key")" : "")
    }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        switch settings.envelope(of: field, in: context.request) {
        case .absent:
            return settings.required ? .fail(.fieldMissing, "the body has no field \(field), which must be encrypted") : .pass(context.detail("\(field) is absent (optional)"))
        case let .unusable(outcome):
            return outcome
        case let .jwe(jwe):
            if let keys = settings.decryptionKeys {
                do {
                    _ = try jwe.decrypt(with: keys)
                } catch {
                    return .fail(.decryptionFailed, "field \(field) does not decrypt with \(settings.keyDescription ?? "the policy key"): \(error.message)")
                }
                return .pass(context.detail("\(field) is a \(jwe.keyAlgorithm.rawValue)/\(jwe.contentEncryption.rawValue) JWE and decrypts"))
            }
            return .pass(context.detail("\(field) is a \(jwe.keyAlgorithm.rawValue)/\(jwe.contentEncryption.rawValue) JWE"))
        }
    }
}

/// The `nonce` half of `encrypted_fields`: a field's JWE protected header carries the server
/// nonce it was encrypted for, binding it to one exchange.
struct EncryptedFieldNonceRule: Rule {
    static let key = "encrypted_fields"
    static let summary = "an encrypted field's protected header carries the expected nonce"
    static let phase = RulePhase.claims
    static let findingCodes: [FindingCode] = [.inputInvalid, .nonceMismatch]
    static let argumentShape: ArgumentShape = .any
    static let isConfigurable = false

    let field: ClaimPath
    let nonce: PolicyValue
    let settings: EncryptedFieldSettings

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }

    var explanation: String { "body field \(field)'s JWE header nonce equals \(nonce.display)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let expected = context.resolve(nonce)?.stringValue else { return .fail(.inputInvalid, "the input used by 'nonce' is not a string") }
        guard case let .jwe(jwe) = settings.envelope(of: field, in: context.request) else {
            return .blocked("field \(field) is not a usable JWE (see request.encrypted_fields.\(field))")
        }
        guard let found = jwe.header.object["nonce"] else { return .fail(.nonceMismatch, "field \(field)'s JWE header has no nonce") }
        guard found == .string(expected) else { return .fail(.nonceMismatch, "field \(field)'s JWE header nonce is not the expected server nonce") }
        return .pass(context.detail("\(field)'s JWE nonce matches"))
    }
}
