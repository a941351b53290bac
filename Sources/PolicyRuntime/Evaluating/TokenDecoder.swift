@_spi(RuleAuthoring) import PolicyJOSE

/// Decodes a presented token once — splitting, bounding, and for `jwe` / `nested` decrypting —
/// turning JOSE errors into findings.
enum TokenDecoder {
    struct Failure: Error {
        /// `token.structure` or `token.decryption`.
        let rule: String
        let code: FindingCode
        let message: String
        /// Where the finding points in the policy; nil for the policy file itself.
        let location: SourceLocation?
        /// The key that decrypted the token before it failed, if it got that far: a plain JWE
        /// whose payload is no claims set was still authenticated by its decryption.
        var decryptedBy: VerifiedKey? = nil
    }

    /// `token` decoded under `envelope`; with `digesting`, its signed bytes are hashed for the
    /// signature cache (`DecodedToken.signedBytesDigest`).
    ///
    /// A token may nest others (RFC 7519 §7.2 step 8): a JWS whose `cty` is `JWT`, and any JWE
    /// of `format: nested`, holds the next token, up to `limits.maxLayers` in all. The claims
    /// are the innermost token's, which must be signed unless the format is `jwe`; the layers
    /// around it are kept for the signature rule, which verifies each.
    static func decode(_ token: String, envelope: TokenEnvelope, digesting: Bool) -> Result<DecodedToken, Failure> {
        let limits = envelope.limits
        let byteCount = token.utf8.count
        var text = token
        var layers: [TokenLayer] = []
        var decryptedBy: VerifiedKey?
        func failing(_ failure: Failure) -> Result<DecodedToken, Failure> {
            var failure = failure
            failure.decryptedBy = decryptedBy
            return .failure(failure)
        }
        while true {
            let encrypted = layers.isEmpty ? envelope.format != .jws : looksLikeJWE(text)
            guard encrypted else {
                let jws: CompactJWS
                switch structure({ () throws(JOSEError) in try CompactJWS(text, limits: limits) }) {
                case let .success(parsed): jws = parsed
                case var .failure(failure):
                    if let outer = layers.last, case .signed = outer {
                        failure = structureFailure(failure.code, "layer \(layers.count) says cty: JWT, and its payload is not a compact JWT: \(failure.message)")
                    }
                    return failing(failure)
                }
                guard jws.header.holdsJWT else {
                    return structure { () throws(JOSEError) in
                        let claims = try JSONObjectView(claimsPayload: jws.payload, limits: limits, what: "the JWS payload")
                        return DecodedToken(jws: jws, header: jws.header, claims: claims, byteCount: byteCount, decryptedBy: decryptedBy,
                                            outerLayers: layers, digesting: digesting)
                    }.mapError { failure in
                        var failure = failure
                        failure.decryptedBy = decryptedBy
                        return failure
                    }
                }
                // No rule reads the header of a layer around the claims, so nothing in it may be critical.
                if let unknown = jws.header.critical.first {
                    return failing(structureFailure(.critUnsupported, "layer \(layers.count + 1) of the token marks '\(unknown)' critical, and no rule reads the headers of the layers around the claims"))
                }
                layers.append(.signed(jws))
                text = String(decoding: jws.payload, as: UTF8.self)
                if let failure = tooDeep(layers, limits) { return failing(failure) }
                continue
            }
            guard let decryption = envelope.decryption else {
                return failing(structureFailure(.malformedToken, "layer \(layers.count + 1) of the token is a JWE, and this policy decrypts nothing",
                                                hint: "format: nested with 'decryption' opens JWEs"))
            }
            let jwe: CompactJWE
            switch structure({ () throws(JOSEError) in try CompactJWE(text, limits: limits) }) {
            case let .success(parsed): jwe = parsed
            case let .failure(failure): return failing(failure)
            }
            // A plain JWE's header is the token's header, and the `crit` rule judges it; the
            // header of a layer around the claims has no rule of its own.
            let plain = envelope.format == .jwe
            let plaintext: [UInt8]
            let key: VerifiedKey
            switch decrypt(jwe, decryption, understood: plain ? Set(jwe.header.critical) : []) {
            case let .success(opened): (plaintext, key) = opened
            case let .failure(failure): return failing(failure)
            }
            decryptedBy = decryptedBy ?? key
            if plain {
                guard !jwe.header.holdsJWT else {
                    return failing(structureFailure(.malformedToken, "the JWE holds a nested token (cty: \(jwe.header.contentType ?? "")), and format jwe reads claims",
                                                    hint: "format: nested verifies the signed token inside"))
                }
                return structure { () throws(JOSEError) in
                    let claims = try JSONObjectView(claimsPayload: plaintext, limits: limits, what: "the decrypted JWE payload")
                    return DecodedToken(jws: nil, header: jwe.header, claims: claims, byteCount: byteCount, decryptedBy: key)
                }.mapError { failure in
                    var failure = failure
                    failure.decryptedBy = key
                    return failure
                }
            }
            layers.append(.encrypted(jwe.header, decryptedBy: key))
            text = String(decoding: plaintext, as: UTF8.self)
            if let failure = tooDeep(layers, limits) { return failing(failure) }
        }
    }

    /// Whether `text` has the five parts of a compact JWE (rather than a JWS's three).
    private static func looksLikeJWE(_ text: String) -> Bool {
        var dots = 0
        for byte in text.utf8 where byte == UInt8(ascii: ".") {
            dots += 1
            if dots > 4 { return false }
        }
        return dots == 4
    }

    /// The failure of a token that would hold one more layer than `limits` allow.
    private static func tooDeep(_ layers: [TokenLayer], _ limits: TokenLimits) -> Failure? {
        guard layers.count + 1 > limits.maxLayers else { return nil }
        return structureFailure(.tokenTooDeep, "the token nests more than \(limits.maxLayers) layer\(limits.maxLayers == 1 ? "" : "s") (limits.max_layers)")
    }

    private static func structureFailure(_ code: FindingCode, _ message: String, hint: String? = nil) -> Failure {
        Failure(rule: "token.structure", code: code, message: hint.map { "\(message); \($0)" } ?? message, location: nil)
    }

    /// Checks the JWE's algorithms against the policy, then tries each candidate key.
    private static func decrypt(_ jwe: CompactJWE, _ decryption: TokenDecryption, understood: Set<String>) -> Result<([UInt8], VerifiedKey), Failure> {
        func failure(_ code: FindingCode, _ message: String) -> Result<([UInt8], VerifiedKey), Failure> {
            .failure(Failure(rule: "token.decryption", code: code, message: message, location: decryption.location))
        }
        guard decryption.keyAlgorithms.contains(jwe.keyAlgorithm) else {
            return failure(.algNotAllowed, "JWE alg \(jwe.keyAlgorithm.rawValue) is not allowed; decryption allows \(decryption.keyAlgorithms.map(\.rawValue).joined(separator: ", "))")
        }
        guard decryption.contentEncryptions.contains(jwe.contentEncryption) else {
            return failure(.algNotAllowed, "JWE enc \(jwe.contentEncryption.rawValue) is not allowed; decryption allows \(decryption.contentEncryptions.map(\.rawValue).joined(separator: ", "))")
        }
        guard let candidates = decryption.candidates(for: jwe) else {
            return failure(.kidUnknown, "no decryption key with kid '\(jwe.header.kid ?? "")' in \(decryption.keys.description)")
        }
        var last = JOSEError(.keyNotFound, "no key in \(decryption.keys.description) can decrypt \(jwe.keyAlgorithm.rawValue)")
        for key in candidates where key.encryptionRestriction(for: jwe.keyAlgorithm, contentEncryption: jwe.contentEncryption, decrypting: true) == nil {
            do {
                let plaintext = try jwe.decrypt(with: key, understoodCritical: understood)
                return .success((plaintext, VerifiedKey(kid: key.kid, source: decryption.keys.description)))
            } catch {
                last = error
            }
        }
        switch last.code {
        case .keyNotFound, .keyMismatch: return failure(.keyUnavailable, last.message)
        case .critUnsupported: return failure(.critUnsupported, last.message)
        case .unsupportedHeader: return failure(.headerUnsupported, last.message)
        default: return failure(.decryptionFailed, "the token does not decrypt with \(candidates.count == 1 ? "the key" : "any of \(candidates.count) keys") from \(decryption.keys.description)")
        }
    }

    private static func structure<T>(_ body: () throws(JOSEError) -> T) -> Result<T, Failure> {
        do throws(JOSEError) {
            return .success(try body())
        } catch {
            return .failure(Failure(rule: "token.structure", code: findingCode(for: error.code), message: error.message, location: nil))
        }
    }

    static func findingCode(for code: JOSEError.Code) -> FindingCode {
        switch code {
        case .tokenTooLarge: .tokenTooLarge
        case .jsonTooDeep: .tokenTooDeep
        case .algNone, .unsupportedAlgorithm: .algNotAllowed
        case .critUnsupported: .critUnsupported
        case .unsupportedHeader: .headerUnsupported
        default: .malformedToken
        }
    }
}
