/// Decodes a presented token once, turning JOSE errors into structure findings.
enum TokenDecoder {
    struct Failure: Error {
        let code: FindingCode
        let message: String
    }

    static func decode(_ token: String, limits: TokenLimits) -> Result<DecodedToken, Failure> {
        do throws(JOSEError) {
            let jws = try CompactJWS(token, limits: limits)
            let claims = try jws.claims(limits: limits)
            return .success(DecodedToken(jws: jws, claims: claims, byteCount: token.utf8.count))
        } catch {
            return .failure(Failure(code: findingCode(for: error.code), message: error.message))
        }
    }

    static func findingCode(for code: JOSEError.Code) -> FindingCode {
        switch code {
        case .tokenTooLarge: .tokenTooLarge
        case .jsonTooDeep: .tokenTooDeep
        case .algNone, .unsupportedAlgorithm: .algNotAllowed
        case .unsupportedHeader: .critUnsupported
        default: .malformedToken
        }
    }
}
