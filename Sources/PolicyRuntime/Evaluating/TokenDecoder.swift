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
    static func decode(_ token: String, envelope: TokenEnvelope, digesting: Bool) -> Result<DecodedToken, Failure> {
        let limits = envelope.limits
        guard let decryption = envelope.decryption, envelope.format != .jws else {
            return structure { () throws(JOSEError) in
                try signed(token, byteCount: token.utf8.count, limits: limits, decryptedBy: nil, digesting: digesting)
            }
        }
        let jwe: CompactJWE
        switch structure({ () throws(JOSEError) in try CompactJWE(token, limits: limits) }) {
        case let .success(parsed): jwe = parsed
        case let .failure(failure): return .failure(failure)
        }
        let plaintext: [UInt8]
        let key: VerifiedKey
        switch decrypt(jwe, decryption, nested: envelope.format == .nested) {
        case let .success(opened): (plaintext, key) = opened
        case let .failure(failure): return .failure(failure)
        }
        let decoded: Result<DecodedToken, Failure>
        if envelope.format == .jwe {
            decoded = structure { () throws(JOSEError) in
                let claims = try JSONObjectView(claimsPayload: plaintext, limits: limits, what: "the decrypted JWE payload")
                return DecodedToken(jws: nil, header: jwe.header, claims: claims, byteCount: token.utf8.count, decryptedBy: key)
            }
        } else {
            decoded = structure { () throws(JOSEError) in
                try signed(String(decoding: plaintext, as: UTF8.self), byteCount: token.utf8.count, limits: limits, decryptedBy: key, digesting: digesting)
            }
        }
        return decoded.mapError { failure in
            var failure = failure
            failure.decryptedBy = key
            return failure
        }
    }

    /// A compact JWS and its claims: the token itself, or a nested token's plaintext.
    private static func signed(_ text: String, byteCount: Int, limits: TokenLimits, decryptedBy key: VerifiedKey?,
                               digesting: Bool) throws(JOSEError) -> DecodedToken {
        let jws = try CompactJWS(text, limits: limits)
        return DecodedToken(jws: jws, header: jws.header, claims: try JSONObjectView(claimsPayload: jws.payload, limits: limits, what: "the JWS payload"),
                            byteCount: byteCount, decryptedBy: key, digesting: digesting)
    }

    /// Checks the JWE's algorithms against the policy, then tries each candidate key.
    private static func decrypt(_ jwe: CompactJWE, _ decryption: TokenDecryption, nested: Bool) -> Result<([UInt8], VerifiedKey), Failure> {
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
        // A plain JWE's header is the token's header, and the `crit` rule judges it; the outer
        // header of a nested token has no rule of its own, so nothing in it may be critical.
        let understood = nested ? [] : Set(jwe.header.critical)
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
