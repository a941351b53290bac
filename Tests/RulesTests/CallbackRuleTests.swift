@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// The `callback` section against authorization responses, good and hostile.
@Suite("Callback rules")
struct CallbackRuleTests {
    static let base = "https://app.example.com/oauth/callback"
    static let good = base + "?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&iss=https%3A%2F%2Fidp.example.com"

    func policy(_ extra: String = "", mode: String = "query") throws -> Policy {
        try Policy.load(text: """
        policy: callback
        inputs:
          state: {}
        callback:
          response_mode: \(mode)
          redirect_uri: \(Self.base)
          state: ${state}
          issuer: https://idp.example.com
        \(extra.isEmpty ? "" : "  " + extra)
        """, file: "callback.yaml", environment: [:])
    }

    func verdict(_ url: String, policy: Policy? = nil, state: String = "af0ifjsldkj") throws -> Verdict {
        try (policy ?? self.policy()).evaluateNow(subjects: [CallbackSubject(url: url)], inputs: ["state": .string(state)], now: UnixTime(seconds: TokenFixture.now))
    }

    @Test("a good response is valid and hands over code and state")
    func good() throws {
        let verdict = try verdict(Self.good)
        #expect(verdict.valid && verdict.findings.isEmpty)
        #expect(verdict.outputs == ["code": .string("SplxlOBeZQQYbYS6WxSbIA"), "state": .string("af0ifjsldkj")])
        // Host case and an explicit default port are the same endpoint.
        #expect(try self.verdict("https://APP.example.com:443/oauth/callback?code=c&state=af0ifjsldkj").valid)
    }

    @Test("an error response fails with its error and description, and hands over nothing")
    func errorResponse() throws {
        let denied = try verdict(Self.base + "?error=access_denied&error_description=The+user+denied+the+request&state=af0ifjsldkj")
        #expect(denied.codes == [.callbackError])
        #expect(denied.findings[0].message == "the authorization server answered 'access_denied': The user denied the request")
        #expect(denied.outputs.isEmpty)
        let long = try verdict(Self.base + "?error=server_error&error_description=" + String(repeating: "x", count: 5000))
        #expect(long.findings[0].message.count < 400)
    }

    @Test("repeats, missing or empty code and state, and a wrong state fail with their codes")
    func parameters() throws {
        let cases: [(String, [FindingCode])] = [
            ("?code=a&code=b&state=af0ifjsldkj", [.parameterRepeated]),
            ("?code=a&state=af0ifjsldkj&state=af0ifjsldkj", [.parameterRepeated]),
            ("?state=af0ifjsldkj", [.codeMissing]),
            ("?code=&state=af0ifjsldkj", [.codeMissing]),
            ("?code=a&state=", [.stateMissing]),
            ("?code=a&state=other", [.stateMismatch]),
            ("?code=a&state=af0ifjsldkj&iss=https%3A%2F%2Fevil.example", [.issuerMismatch]),
            ("?code=a&state=af0ifjsldkj&unknown=ignored", []),
        ]
        for (query, codes) in cases {
            #expect(try verdict(Self.base + query).codes == codes, "\(query)")
        }
    }

    @Test("the callback must arrive at the redirect URI: scheme, host, port and path")
    func redirectURI() throws {
        for url in ["http://app.example.com/oauth/callback", "https://app.example.com.evil.example/oauth/callback",
                    "https://app.example.com:8443/oauth/callback", "https://app.example.com/oauth/callback/extra", "https://app.example.com/OAUTH/callback"] {
            #expect(try verdict(url + "?code=a&state=af0ifjsldkj").codes == [.redirectURIMismatch], "\(url)")
        }
    }

    @Test("broken URLs and encodings are callback_malformed, never a crash")
    func malformed() throws {
        let cases = ["not a url", "/oauth/callback?code=a&state=b", Self.base + "?code=%zz&state=af0ifjsldkj",
                     Self.base + "?code=%ff&state=af0ifjsldkj", Self.base + "?code=a%&state=af0ifjsldkj",
                     Self.base + "?code=\u{0}&state=af0ifjsldkj", Self.base + "?code=" + String(repeating: "a", count: 20000) + "&state=af0ifjsldkj"]
        for url in cases {
            let verdict = try verdict(url)
            #expect(!verdict.valid)
            #expect(verdict.codes.first == .callbackMalformed, "\(url.prefix(80)): \(verdict.codes)")
        }
    }

    @Test("response_mode fragment reads the fragment and ignores the query; require_issuer makes iss mandatory")
    func modes() throws {
        let fragment = try policy(mode: "fragment")
        #expect(try verdict(Self.base + "?code=q&state=q#code=f&state=af0ifjsldkj", policy: fragment).outputs["code"] == .string("f"))
        #expect(try verdict(Self.good, policy: fragment).codes == [.codeMissing])
        #expect(try verdict(Self.base + "?code=a&state=af0ifjsldkj").valid)
        let strict = try policy("require_issuer: true")
        #expect(try verdict(Self.base + "?code=a&state=af0ifjsldkj", policy: strict).codes == [.issuerMissing])
        #expect(try verdict(Self.good, policy: strict).valid)
    }

    @Test("compile errors and subjects")
    func compileErrors() throws {
        let cases: [(String, DiagnosticCode)] = [
            ("callback:\n  response_mode: form_post\n", .invalidValue),
            ("callback:\n  require_issuer: true\n", .missingKey),
            ("callback:\n  redirect_uri: /oauth/callback\n", .invalidValue),
            ("callback:\n  redirect_url: https://a.example/cb\n", .unknownKey),
        ]
        for (text, code) in cases {
            let found = CompileErrorTests.diagnostics("policy: p\n" + text)
            #expect(found.contains { $0.code == code && $0.severity == .error }, "\(text): \(found.map(\.description))")
        }
        let error = #expect(throws: EvaluationError.self) { try policy().evaluateNow(inputs: ["state": .string("s")], now: 0) }
        #expect(error?.code == .missingSubject)
    }

    @Test("form decoding: plus as space, percent escapes, UTF-8 strictly")
    func formDecoding() throws {
        let parameters = try FormParameters(decoding: "a=1+2&b=%C3%A4%2B&c&=x&&d=")
        #expect(parameters.pairs.map(\.name) == ["a", "b", "c", "", "d"])
        #expect(parameters.single("a") == "1 2" && parameters.single("b") == "ä+" && parameters.single("c") == "")
        #expect(throws: FormEncodingError.self) { try FormParameters(decoding: "a=%C3") }
        let error = #expect(throws: FormEncodingError.self) { try FormParameters(decoding: "a=1&b=%4") }
        #expect(error?.description == "the value of 'b' of parameter 2 has a broken percent escape or is not UTF-8")
    }
}
