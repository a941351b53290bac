@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// The `pkce` section against RFC 7636 Appendix B and its failure modes.
@Suite("PKCE rules")
struct PKCERuleTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    func policy(_ methods: String = "", declared: Bool = true) throws -> Policy {
        try Policy.load(text: """
        policy: pkce
        inputs:
          verifier: {}
          challenge: {}
          method: {required: false}
        pkce:
          \(methods.isEmpty ? "" : "methods: \(methods)")
          \(declared ? "challenge_method: ${method}" : "")
          verifier: ${verifier}
          challenge: ${challenge}
        """, file: "pkce.yaml", environment: [:])
    }

    func codes(_ policy: Policy, verifier: String = Self.verifier, challenge: String = Self.challenge, method: String? = "S256") throws -> [FindingCode] {
        var inputs: [String: JSONValue] = ["verifier": .string(verifier), "challenge": .string(challenge)]
        if let method { inputs["method"] = .string(method) }
        return try policy.evaluateNow(inputs: inputs, now: UnixTime(seconds: TokenFixture.now)).codes
    }

    @Test("RFC 7636 Appendix B passes with S256; a verdict without a token is valid but not verified")
    func appendixB() throws {
        let verdict = try policy().evaluateNow(inputs: ["verifier": .string(Self.verifier), "challenge": .string(Self.challenge), "method": .string("S256")],
                                           now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.valid && !verdict.verified && verdict.findings.isEmpty)
        #expect(try codes(policy(), challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN") == [.pkceMismatch])
    }

    @Test("a client that declared no method used plain, which only a listed plain allows")
    func absentMethodIsPlain() throws {
        #expect(try codes(policy(), method: nil) == [.pkceMethodNotAllowed])
        #expect(try codes(policy(), challenge: Self.verifier, method: "plain") == [.pkceMethodNotAllowed])
        #expect(try codes(policy(), method: "S512") == [.pkceMethodNotAllowed])
        let lenient = try policy("[S256, plain]")
        #expect(lenient.warnings.map(\.code) == [.insecureSetting])
        #expect(try codes(lenient, challenge: Self.verifier, method: nil).isEmpty)
        #expect(try codes(lenient, challenge: Self.challenge, method: nil) == [.pkceMismatch])
        // Without challenge_method the first allowed method applies.
        #expect(try codes(policy(declared: false), method: nil).isEmpty)
    }

    @Test("verifiers of the wrong length or alphabet are pkce_verifier_invalid, and messages never show them")
    func verifierSyntax() throws {
        let policy = try policy()
        for bad in [String(repeating: "a", count: 42), String(repeating: "a", count: 129), Self.verifier.dropLast() + "+", "ä" + Self.verifier.dropFirst(2)] {
            let verdict = try policy.evaluateNow(inputs: ["verifier": .string(String(bad)), "challenge": .string(Self.challenge), "method": .string("S256")],
                                              now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.pkceVerifierInvalid], "\(bad)")
            #expect(verdict.findings.allSatisfy { !$0.message.contains(String(bad)) })
        }
        #expect(try codes(policy, verifier: String(repeating: "~", count: 128), challenge: PKCE.s256Challenge(verifier: String(repeating: "~", count: 128))).isEmpty)
    }

    @Test("compile errors: unknown methods, an empty list, a challenge without a verifier")
    func compileErrors() {
        let cases: [(String, DiagnosticCode)] = [
            ("pkce:\n  methods: [S265]\n  verifier: x\n", .invalidValue),
            ("pkce:\n  methods: []\n  verifier: x\n", .invalidValue),
            ("pkce:\n  challenge: x\n", .missingKey),
            ("pkce:\n  verifer: x\n", .unknownKey),
        ]
        for (text, code) in cases {
            let found = CompileErrorTests.diagnostics("policy: p\n" + text)
            #expect(found.contains { $0.code == code && $0.severity == .error }, "\(text): \(found.map(\.description))")
        }
    }

    @Test("a pkce policy refuses a token, and a token policy needs one")
    func subjects() throws {
        #expect(throws: EvaluationError.self) { try policy().evaluateNow(token: "a.b.c", inputs: ["verifier": .string(Self.verifier), "challenge": .string(Self.challenge)], now: 0) }
        let tokenPolicy = try TokenFixture.shared.policy("")
        let error = #expect(throws: EvaluationError.self) { try tokenPolicy.evaluateNow(now: UnixTime(seconds: TokenFixture.now)) }
        #expect(error?.code == .missingSubject)
    }
}
