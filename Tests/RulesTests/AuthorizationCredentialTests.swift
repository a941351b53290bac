import Rules
import Testing

/// RFC 6750 §2.1 and RFC 9449 §7.1 as every front reads them: one `Authorization` header,
/// `Bearer` or `DPoP` in any ASCII case, one or more spaces, a `b64token`.
@Suite("Authorization credential")
struct AuthorizationCredentialTests {
    private func token(in values: [String]) -> Result<String, AuthorizationCredential.Problem> {
        AuthorizationCredential.read(values).map { $0.scheme == .bearer ? $0.token : "DPoP " + $0.token }
    }

    @Test("the scheme in any ASCII case, a b64token with trailing '='")
    func accepted() {
        #expect(token(in: ["Bearer abc.def"]) == .success("abc.def"))
        #expect(token(in: ["bEARER abc"]) == .success("abc"))
        #expect(token(in: ["Bearer  a-b_c~d+e/f=="]) == .success("a-b_c~d+e/f=="))
        #expect(token(in: ["DPoP abc.def"]) == .success("DPoP abc.def"))
        #expect(token(in: ["dpop abc"]) == .success("DPoP abc"))
    }

    @Test("none, two, another scheme, a scheme in look-alike letters, or a token outside b64token is refused with its reason")
    func refused() {
        #expect(token(in: []) == .failure(.absent))
        #expect(token(in: ["Bearer a", "Bearer b"]) == .failure(.repeated(2)))
        #expect(token(in: ["Basic YWJj"]) == .failure(.otherScheme))
        #expect(token(in: ["Bearerabc"]) == .failure(.otherScheme))
        #expect(token(in: ["Beare\u{212A} abc"]) == .failure(.otherScheme))
        #expect(token(in: ["Bearer "]) == .failure(.malformed))
        #expect(token(in: ["Bearer é"]) == .failure(.malformed))
        #expect(token(in: ["Bearer a b"]) == .failure(.malformed))
        #expect(token(in: ["Bearer a=b"]) == .failure(.malformed))
        #expect(token(in: ["Bearer ==="]) == .failure(.malformed))
        #expect(token(in: ["DPoPabc"]) == .failure(.otherScheme))
        #expect(token(in: ["DPo abc"]) == .failure(.otherScheme))
        #expect(token(in: ["DPoP a b"]) == .failure(.malformed))
    }

    @Test("each ASCII character is in a token exactly when RFC 6750's b64token has it, in the middle of a long token too")
    func everyCharacter() {
        let b64token = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
        let padding = String(repeating: "a", count: 500)
        for scalar in (0..<128).compactMap(Unicode.Scalar.init) where scalar != "=" {
            let token = padding + String(Character(scalar)) + padding
            let expected: Result<String, AuthorizationCredential.Problem> = b64token.contains(Character(scalar)) ? .success(token) : .failure(.malformed)
            #expect(self.token(in: ["Bearer " + token]) == expected, "\(scalar.value)")
        }
    }
}
