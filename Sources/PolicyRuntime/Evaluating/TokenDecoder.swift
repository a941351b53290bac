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
    /// signature cache (`DecodedToken.signedBytesDigest`); `headers` answers for a compact
    /// JWS's header text it holds, and `shapes` holds the layouts of claims sets read before.
    ///
    /// A token may nest others (RFC 7519 §7.2 step 8): a JWS whose `cty` is `JWT`, and any JWE
    /// of `format: nested`, holds the next token, up to `limits.maxLayers` in all. The claims
    /// are the innermost token's, which must be signed unless the format is `jwe`; the layers
    /// around it are kept for the signature rule, which verifies each.
    ///
    /// The token presented may be in JSON serialization (RFC 7515 §7.2, RFC 7516 §7.2): a JWS
    /// is decoded once per signature, the first carrying the others (`otherSignatures`); a JWE
    /// decrypts with the first recipient a policy key opens.
    static func decode(_ presented: TokenText, envelope: TokenEnvelope, digesting: Bool, headers: JOSEHeaderCache? = nil,
                       shapes: JSONObjectShapes? = nil) -> Result<DecodedToken, Failure> {
        let byteCount = presented.byteCount
        guard presented.withUTF8(JSONSerializedJWS.isJSON) else {
            guard envelope.format == .jws else { return decode(.compact(presented.text), byteCount: byteCount, envelope: envelope, digesting: digesting) }
            // The common case without the layer loop: a compact JWS that nests no other token,
            // read from the token's bytes as given (and not wrapped in a `Result`, whose generic
            // copies of the token cost more than the rest of this step).
            let jws: CompactJWS, limits = envelope.limits
            do {
                // The limits captured, not the envelope: a copy of it, retained and released, a token.
                jws = try presented.withUTF8 { bytes throws(JOSEError) in try CompactJWS(bytes, limits: limits, headers: headers) }
            } catch {
                return .failure(structureFailure(error))
            }
            guard jws.holdsJWT else {
                return claimsToken(jws, byteCount: byteCount, limits: limits, decryptedBy: nil, layers: [], otherSignatures: [], digesting: digesting,
                                   shapes: shapes)
            }
            return decode(.signed(jws), byteCount: byteCount, envelope: envelope, digesting: digesting)
        }
        let token = presented.text
        guard envelope.format == .jws else {
            return structure { () throws(JOSEError) in try JSONSerializedJWE.recipients(token, limits: envelope.limits) }
                .flatMap { decode(.encrypted($0), byteCount: byteCount, envelope: envelope, digesting: digesting) }
        }
        let signatures: [CompactJWS]
        switch structure({ () throws(JOSEError) in try JSONSerializedJWS.signatures(token, limits: envelope.limits) }) {
        case let .success(parsed): signatures = parsed
        case let .failure(failure): return .failure(failure)
        }
        var others: [DecodedToken] = []
        for jws in signatures.dropFirst() {
            switch decode(.signed(jws), byteCount: byteCount, envelope: envelope, digesting: digesting) {
            case let .success(decoded): others.append(decoded)
            case let .failure(failure): return .failure(failure)
            }
        }
        return decode(.signed(signatures[0]), byteCount: byteCount, envelope: envelope, digesting: digesting, otherSignatures: others)
    }

    /// Where decoding starts: the text of a compact token, or the outermost token read already.
    private enum Start {
        case compact(String)
        case signed(CompactJWS)
        /// A JWE's recipients: one for a compact JWE.
        case encrypted([CompactJWE])
    }

    private static func decode(_ start: Start, byteCount: Int, envelope: TokenEnvelope, digesting: Bool,
                               otherSignatures: [DecodedToken] = []) -> Result<DecodedToken, Failure> {
        let limits = envelope.limits
        var next = start
        var layers: [TokenLayer] = []
        var decryptedBy: VerifiedKey?
        /// A failure after a decryption still names the key that authenticated the token.
        func keyed(_ failure: Failure) -> Failure {
            var failure = failure
            failure.decryptedBy = decryptedBy
            return failure
        }
        func failing(_ failure: Failure) -> Result<DecodedToken, Failure> { .failure(keyed(failure)) }
        while true {
            switch next {
            case let .compact(text):
                let encrypted = layers.isEmpty ? envelope.format != .jws : looksLikeJWE(text)
                let parsed = structure { () throws(JOSEError) -> Start in
                    encrypted ? .encrypted([try CompactJWE(text, limits: limits)]) : .signed(try CompactJWS(text, limits: limits))
                }
                switch parsed {
                case let .success(token):
                    next = token
                    continue
                case var .failure(failure):
                    if let outer = layers.last { failure = nextLayerFailure(failure, text: text, inside: outer, at: layers.count) }
                    return failing(failure)
                }
            case let .signed(jws):
                guard jws.header.holdsJWT else {
                    return claimsToken(jws, byteCount: byteCount, limits: limits, decryptedBy: decryptedBy, layers: layers, otherSignatures: otherSignatures,
                                       digesting: digesting).mapError(keyed)
                }
                // No rule reads the header of a layer around the claims, so nothing in it may be critical.
                if let unknown = jws.header.critical.first {
                    return failing(structureFailure(.critUnsupported, "layer \(layers.count + 1) of the token marks '\(unknown)' critical, and no rule reads the headers of the layers around the claims"))
                }
                layers.append(.signed(jws))
                next = .compact(String(decoding: jws.payload, as: UTF8.self))
            case let .encrypted(recipients):
                guard let decryption = envelope.decryption else {
                    return failing(structureFailure(.malformedToken, "layer \(layers.count + 1) of the token is a JWE, and this policy decrypts nothing",
                                                    hint: "format: nested with 'decryption' opens JWEs"))
                }
                // A plain JWE's header is the token's header, and the `crit` rule judges it; the
                // header of a layer around the claims has no rule of its own.
                let plain = envelope.format == .jwe
                let opened: Opened
                switch decrypt(recipients, decryption, understood: plain ? Set(recipients[0].header.critical) : []) {
                case let .success(result): opened = result
                case let .failure(failure): return failing(failure)
                }
                decryptedBy = decryptedBy ?? opened.key
                if plain {
                    guard !opened.recipient.header.holdsJWT else {
                        return failing(structureFailure(.malformedToken, "the JWE holds a nested token (cty: \(opened.recipient.header.contentType ?? "")), and format jwe reads claims",
                                                        hint: "format: nested verifies the signed token inside"))
                    }
                    return structure { () throws(JOSEError) in
                        let claims = try JSONObjectView(claimsPayload: opened.plaintext, limits: limits, what: "the decrypted JWE payload")
                        return DecodedToken(jws: nil, header: opened.recipient.protectedHeader, claims: claims, byteCount: byteCount, decryptedBy: opened.key)
                    }.mapError(keyed)
                }
                layers.append(.encrypted(opened.recipient.protectedHeader, decryptedBy: opened.key))
                next = .compact(String(decoding: opened.plaintext, as: UTF8.self))
            }
            if let failure = tooDeep(layers, limits) { return failing(failure) }
        }
    }

    /// Why the token inside layer `index` (`outer`) could not be read, saying what it holds.
    private static func nextLayerFailure(_ failure: Failure, text: String, inside outer: TokenLayer, at index: Int) -> Failure {
        let holder = outer.signature == nil ? "the JWE (layer \(index)) holds a token, as format nested says" : "layer \(index) says cty: JWT"
        guard JSONSerializedJWS.isJSON(text) else {
            return structureFailure(failure.code, "\(holder), and its payload is not a compact JWT: \(failure.message)")
        }
        return structureFailure(.malformedToken, "\(holder), and its payload is a JSON object, not a compact JWT",
                                hint: outer.signature == nil ? "for claims encrypted without a signature, use format: jwe"
                                                             : "a JWS whose payload is the claims has no cty: JWT")
    }

    /// The token whose claims are `jws`'s payload, inside `layers`.
    private static func claimsToken(_ jws: CompactJWS, byteCount: Int, limits: TokenLimits, decryptedBy: VerifiedKey?, layers: [TokenLayer],
                                    otherSignatures: [DecodedToken], digesting: Bool, shapes: JSONObjectShapes? = nil) -> Result<DecodedToken, Failure> {
        // Without closures: each would capture (and retain) the token's parts for every token.
        let claims: JSONObjectView
        do throws(JOSEError) {
            claims = try JSONObjectView(claimsPayload: jws.payload, limits: limits, what: "the JWS payload", shapes: shapes)
        } catch {
            let failure = structureFailure(error)
            guard failure.code == .malformedToken, looksLikeCompactToken(jws.payload) else { return .failure(failure) }
            return .failure(structureFailure(failure.code, failure.message,
                                             hint: "the payload looks like a compact token: a JWS that nests one says cty: JWT in its header"))
        }
        return .success(DecodedToken(jws: jws, header: jws.header, claims: claims, byteCount: byteCount, decryptedBy: decryptedBy,
                                     outerLayers: layers, otherSignatures: otherSignatures, digesting: digesting))
    }

    /// Whether `payload` has the look of a compact JWS or JWE: `eyJ` (a base64url `{"`) and two
    /// or four dots, the rest base64url.
    private static func looksLikeCompactToken(_ payload: ArraySlice<UInt8>) -> Bool {
        guard payload.starts(with: Array("eyJ".utf8)) else { return false }
        let dots = payload.count { $0 == UInt8(ascii: ".") }
        return (dots == 2 || dots == 4) && payload.allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
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

    /// A JWE decrypted: its plaintext, the key that opened it and the recipient it opened for.
    private struct Opened {
        let plaintext: [UInt8]
        let key: VerifiedKey
        let recipient: CompactJWE
    }

    /// The first of `recipients` a policy key decrypts. When none does, the failure of the
    /// recipient that got furthest, so a JWE for us and others says why ours failed.
    private static func decrypt(_ recipients: [CompactJWE], _ decryption: TokenDecryption, understood: Set<String>) -> Result<Opened, Failure> {
        var failures: [Failure] = []
        for recipient in recipients {
            switch decrypt(recipient, decryption, understood: understood) {
            case let .success((plaintext, key)): return .success(Opened(plaintext: plaintext, key: key, recipient: recipient))
            case let .failure(failure): failures.append(failure)
            }
        }
        guard failures.count > 1 else { return .failure(failures[0]) }
        let furthest: [FindingCode] = [.decryptionFailed, .critUnsupported, .headerUnsupported, .keyUnavailable, .kidUnknown, .algNotAllowed]
        let chosen = failures.min { (furthest.firstIndex(of: $0.code) ?? furthest.count) < (furthest.firstIndex(of: $1.code) ?? furthest.count) }!
        return .failure(Failure(rule: chosen.rule, code: chosen.code,
                                message: "none of the JWE's \(failures.count) recipients decrypts with the policy's keys; the nearest: \(chosen.message)",
                                location: chosen.location))
    }

    /// Checks one recipient's algorithms against the policy, then tries each candidate key.
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
            return .failure(structureFailure(error))
        }
    }

    /// A JOSE error met while reading the token's structure, as its failure.
    private static func structureFailure(_ error: JOSEError) -> Failure {
        structureFailure(findingCode(for: error.code), error.message)
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
