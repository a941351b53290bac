@_spi(RuleAuthoring) import PolicyJOSE

/// Stage 4 of a compile, with `TokenSettings`: the `token` settings that apply before any rule
/// runs: `format`, `decryption` (its key source read with `Keys`) and `limits`.
extension RuleCompiler {
    static let decryptionKeys = ["algorithms", "encryption", "key"]

    mutating func tokenEnvelope() -> TokenEnvelope {
        var envelope = TokenEnvelope.standard
        if let node = setting("limits") { envelope.limits = tokenLimits(node) }
        if let node = setting("format") {
            let formats = TokenEnvelope.Format.allCases.map(\.rawValue)
            if let text = node.scalar?.string, let format = TokenEnvelope.Format(rawValue: text) {
                envelope.format = format
            } else {
                error(.invalidValue, "'format' must be one of \(formats.joined(separator: ", ")), found \(node.shapeDescription)", at: node,
                      hint: node.scalar?.string.flatMap { Suggestion.didYouMean($0, among: formats) })
            }
        }
        if envelope.format == .nested, envelope.limits.maxLayers < 2, let node = setting("limits")?["max_layers"] {
            error(.conflict, "format nested is a JWE around a signed token, two layers, and 'max_layers' is 1", at: node, hint: "set max_layers: 2 or more")
        }
        if let node = setting("signatures") {
            envelope.signaturesLocation = node.location
            switch node.scalar?.value {
            case .string("any")?: envelope.signatures = .any
            case .string("all")?: envelope.signatures = .all
            case let .integer(count)? where count >= 1 && count <= Int64(TokenEnvelope.SignatureRequirement.mostSigners):
                envelope.signatures = count == 1 ? .any : .atLeast(Int(count))
            default:
                error(.invalidValue, "'signatures' must be any, all, or a number of signers from 1 to \(TokenEnvelope.SignatureRequirement.mostSigners), found \(node.shapeDescription)",
                      at: node, hint: node.scalar?.string.flatMap { Suggestion.didYouMean($0, among: ["any", "all"]) })
            }
            if envelope.format == .jwe {
                error(.conflict, "'signatures' applies to signed tokens, and format jwe tokens are only encrypted", at: node)
            }
        }
        let decryptionNode = setting("decryption")
        switch (envelope.format, decryptionNode) {
        case (.jws, nil):
            break
        case let (.jws, node?):
            error(.conflict, "'decryption' applies to encrypted tokens, and 'format' is jws", at: node,
                  hint: "set format: nested (a signed token inside a JWE) or format: jwe")
        case (_, nil):
            error(.missingKey, "format \(envelope.format.rawValue) needs 'decryption' with algorithms, encryption and key", at: setting("format") ?? section)
        case let (_, node?):
            envelope.decryption = decryption(node)
        }
        return envelope
    }

    private mutating func tokenLimits(_ node: YAMLNode) -> TokenLimits {
        var limits = TokenLimits.standard
        for field in mapping(node, allowed: ["max_token_bytes", "max_json_depth", "max_layers"], what: "'limits'") ?? [] {
            // Depth is bounded by what the recursive parser survives on any thread, with room to spare.
            let ceiling: Int64 = switch field.name {
            case "max_json_depth": Int64(TokenLimits.deepestJSON)
            case "max_layers": Int64(TokenLimits.mostLayers)
            default: 16 << 20
            }
            guard case let .integer(value)? = field.value.scalar?.value, value > 0, value <= ceiling else {
                error(.invalidValue, "'\(field.name)' must be an integer from 1 to \(ceiling)", at: field.value)
                continue
            }
            switch field.name {
            case "max_token_bytes": limits.maxTokenBytes = Int(value)
            case "max_json_depth": limits.maxJSONDepth = Int(value)
            default: limits.maxLayers = Int(value)
            }
        }
        return limits
    }

    private mutating func decryption(_ node: YAMLNode) -> TokenDecryption? {
        guard let pairs = mapping(node, allowed: Self.decryptionKeys, what: "'decryption'") else { return nil }
        for key in Self.decryptionKeys where !pairs.contains(where: { $0.name == key }) {
            error(.missingKey, "'decryption' needs '\(key)'", at: node)
        }
        let keyAlgorithms = node["algorithms"].flatMap { names($0, what: "'decryption.algorithms'") { name throws(JOSEError) in try JWEKeyAlgorithm(name: name) } }
        let encryptions = node["encryption"].flatMap { names($0, what: "'decryption.encryption'") { name throws(JOSEError) in try JWEContentEncryption(name: name) } }
        let keys = node["key"].flatMap { keySource($0, what: "'decryption.key'", purpose: .decryption) }
        guard let keyAlgorithms, let encryptions, let keys else { return nil }
        for key in keys.localKeys?.keys ?? [] {
            let named = key.kid.map { "key '\($0)'" } ?? "the key"
            guard key.isPrivate else {
                error(.keySource, "\(keys.description): \(named) is public; decryption needs the private key", at: node["key"]!)
                return nil
            }
            // As under encrypted_fields: a key that serves none of the listed algorithms would
            // fail every token at run time.
            let problems = keyAlgorithms.compactMap { algorithm -> JOSEError? in
                let restrictions = encryptions.map { key.encryptionRestriction(for: algorithm, contentEncryption: $0, decrypting: true) }
                return restrictions.contains { $0 == nil } ? nil : restrictions.first ?? nil
            }
            if problems.count == keyAlgorithms.count, let problem = problems.first {
                error(.keySource, "\(keys.description): \(named) cannot decrypt with any of \(keyAlgorithms.map(\.rawValue).joined(separator: ", ")): \(problem.message)",
                      at: node["key"]!, hint: "list the algorithms this key serves, or name a key for them")
                return nil
            }
        }
        return TokenDecryption(keyAlgorithms: keyAlgorithms, contentEncryptions: encryptions, keys: keys, location: node.location)
    }

    /// A list of algorithm names, each read by `parse`; unknown names get a hint.
    private mutating func names<T: RawRepresentable & CaseIterable>(
        _ node: YAMLNode, what: String, _ parse: (String) throws(JOSEError) -> T
    ) -> [T]? where T.RawValue == String {
        guard let names = literalStrings(node, what: what) else { return nil }
        var values: [T] = []
        for (index, name) in names.enumerated() {
            do {
                values.append(try parse(name))
            } catch {
                let known = T.allCases.map(\.rawValue)
                self.error(.invalidValue, "\(what): \(error.message)", at: node.items?[index] ?? node,
                      hint: Suggestion.didYouMean(name, among: known) ?? "use one of \(known.joined(separator: ", "))")
            }
        }
        return values.count == names.count ? values : nil
    }
}
