import Rules
import Testing

/// RFC 6750 §2.1 as every front reads it: one `Authorization` header, `Bearer` in any ASCII case,
/// one or more spaces, a `b64token`.
@Suite("Bearer credential")
struct BearerCredentialTests {
    @Test("the scheme in any ASCII case, a b64token with trailing '='")
    func accepted() {
        #expect(BearerCredential.token(in: ["Bearer abc.def"]) == .success("abc.def"))
        #expect(BearerCredential.token(in: ["bEARER abc"]) == .success("abc"))
        #expect(BearerCredential.token(in: ["Bearer  a-b_c~d+e/f=="]) == .success("a-b_c~d+e/f=="))
    }

    @Test("none, two, another scheme, a scheme in look-alike letters, or a token outside b64token is refused with its reason")
    func refused() {
        #expect(BearerCredential.token(in: []) == .failure(.absent))
        #expect(BearerCredential.token(in: ["Bearer a", "Bearer b"]) == .failure(.repeated(2)))
        #expect(BearerCredential.token(in: ["Basic YWJj"]) == .failure(.otherScheme))
        #expect(BearerCredential.token(in: ["Bearerabc"]) == .failure(.otherScheme))
        #expect(BearerCredential.token(in: ["Beare\u{212A} abc"]) == .failure(.otherScheme))
        #expect(BearerCredential.token(in: ["Bearer "]) == .failure(.malformed))
        #expect(BearerCredential.token(in: ["Bearer é"]) == .failure(.malformed))
        #expect(BearerCredential.token(in: ["Bearer a b"]) == .failure(.malformed))
        #expect(BearerCredential.token(in: ["Bearer a=b"]) == .failure(.malformed))
        #expect(BearerCredential.token(in: ["Bearer ==="]) == .failure(.malformed))
    }

    @Test("each ASCII character is in a token exactly when RFC 6750's b64token has it, in the middle of a long token too")
    func everyCharacter() {
        let b64token = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
        let padding = String(repeating: "a", count: 500)
        for scalar in (0..<128).compactMap(Unicode.Scalar.init) where scalar != "=" {
            let token = padding + String(Character(scalar)) + padding
            let expected: Result<String, BearerCredential.Problem> = b64token.contains(Character(scalar)) ? .success(token) : .failure(.malformed)
            #expect(BearerCredential.token(in: ["Bearer " + token]) == expected, "\(scalar.value)")
        }
    }
}
