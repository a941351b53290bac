import Foundation
import PolicyRuntime
import PolicyJOSE
import Rules
import Testing

/// `token.embedded_tokens`: a token inside a claim, checked with another policy, named or inline.
@Suite("Embedded tokens rule")
struct EmbeddedTokensRuleTests {
    let fixture = TokenFixture.shared

    /// A policy whose `njwt` claim must hold a token of the fixture's issuer.
    func policy(_ embedded: String? = nil, inputs: String = "", mode: String = "collect_all") throws -> Policy {
        let inline = "{token: {algorithms: [ES256], keys: {jwks: \(fixture.jwksJSON)}, issuer: https://issuer.example}}"
        return try fixture.policy("embedded_tokens:\n  njwt: \(embedded ?? inline)", inputs: inputs, mode: mode)
    }

    /// An outer token whose `njwt` claim is `inner`.
    func outer(_ inner: JSONValue?) throws -> String {
        try fixture.token(inner.map { ["njwt": $0] } ?? [:])
    }

    @Test("a valid token in the claim passes; a failing one is embedded_token_invalid with its findings nested")
    func inlinePolicy() throws {
        let policy = try policy()
        let good = try policy.evaluateNow(token: try outer(.string(try fixture.token())), now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(good.valid && good.verified)
        let step = good.trace?.entries.first { $0.rule == "token.embedded_tokens.njwt" }
        #expect(step?.status == .pass)

        let expired = try policy.evaluateNow(token: try outer(.string(try fixture.token(["exp": .number(.integer(1_795_250_000))]))), now: UnixTime(seconds: TokenFixture.now))
        #expect(expired.codes == [.embeddedTokenInvalid] && expired.verified)
        #expect(expired.findings[0].rule == "token.embedded_tokens.njwt")
        #expect(expired.findings[0].nested.map(\.code) == [.tokenExpired])
        let json = expired.json.objectValue?["findings"]?.arrayValue?.first?.objectValue
        #expect(json?["findings"]?.arrayValue?.first?.objectValue?["code"] == .string("token_expired"))

        let forged = try policy.evaluateNow(token: try outer(.string(try fixture.token(signer: fixture.otherKey))), now: UnixTime(seconds: TokenFixture.now))
        #expect(forged.codes == [.embeddedTokenInvalid] && forged.findings[0].nested.map(\.code) == [.signatureInvalid])
        let otherIssuer = try policy.evaluateNow(token: try outer(.string(try fixture.token(["iss": .string("https://evil.example")]))), now: UnixTime(seconds: TokenFixture.now))
        #expect(otherIssuer.findings.first?.nested.map(\.code) == [.issuerMismatch])
        let garbage = try policy.evaluateNow(token: try outer(.string("not.a.token")), now: UnixTime(seconds: TokenFixture.now))
        #expect(garbage.codes == [.embeddedTokenInvalid] && garbage.findings[0].nested.map(\.code) == [.malformedToken])
    }

    @Test("an absent claim is claim_missing, a claim that is not a string claim_type; the outer signature still decides verified")
    func shapes() throws {
        let policy = try policy()
        #expect(try policy.evaluateNow(token: try outer(nil), now: UnixTime(seconds: TokenFixture.now)).codes == [.claimMissing])
        for value: JSONValue in [.number(.integer(1)), .null, .object(JSONObject()), .array([.string(try fixture.token())])] {
            #expect(try policy.evaluateNow(token: try outer(value), now: UnixTime(seconds: TokenFixture.now)).codes == [.claimType], "\(value)")
        }
        // A valid inner token does not make up for a forged outer one.
        let forgedOuter = try fixture.token(["njwt": .string(try fixture.token())], signer: fixture.otherKey)
        let verdict = try policy.evaluateNow(token: forgedOuter, now: UnixTime(seconds: TokenFixture.now))
        #expect(!verdict.valid && !verdict.verified && verdict.codes == [.signatureInvalid])
    }

    @Test("a claim path reaches into objects; each claim is its own rule")
    func paths() throws {
        let inline = "{token: {algorithms: [ES256], keys: {jwks: \(fixture.jwksJSON)}}}"
        let policy = try fixture.policy("embedded_tokens:\n  registration.pairing: \(inline)\n  njwt: \(inline)")
        let inner = JSONValue.string(try fixture.token())
        let both = try fixture.token(["registration": .object(JSONObject(["pairing": inner])), "njwt": inner])
        #expect(try policy.evaluateNow(token: both, now: UnixTime(seconds: TokenFixture.now)).valid)
        let one = try policy.evaluateNow(token: try outer(inner), now: UnixTime(seconds: TokenFixture.now))
        #expect(one.codes == [.claimMissing] && one.findings.map(\.rule) == ["token.embedded_tokens.registration.pairing"])
    }

    @Test("an inline policy reads this policy's inputs; a named one must have its required inputs declared here")
    func inputs() throws {
        let inline = "{token: {algorithms: [ES256], keys: {jwks: \(fixture.jwksJSON)}, issuer: '${expected_issuer}'}}"
        let policy = try policy(inline, inputs: "  expected_issuer: {}")
        #expect(policy.warnings.filter { $0.code == .inputUnused }.isEmpty)
        let token = try outer(.string(try fixture.token()))
        #expect(try policy.evaluateNow(token: token, inputs: ["expected_issuer": .string("https://issuer.example")], now: UnixTime(seconds: TokenFixture.now)).valid)
        let other = try policy.evaluateNow(token: token, inputs: ["expected_issuer": .string("https://other.example")], now: UnixTime(seconds: TokenFixture.now))
        #expect(other.codes == [.embeddedTokenInvalid] && other.findings[0].nested.map(\.code) == [.issuerMismatch])
        let undeclared = #expect(throws: PolicyDiagnostics.self) { try self.policy(inline) }
        #expect(undeclared?.items.contains { $0.message.contains("names no declared input") } == true)
        let named = CompileErrorTests.diagnosticsBesideBundledPolicies("policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {njwt: {policy: okta-id-token}}\n")
        #expect(named.contains { $0.code == .undeclaredInput })
    }

    @Test("compile errors: not a mapping, an empty one, a bad claim path, both forms, a policy that checks no token, a cycle")
    func compileErrors() throws {
        let cases: [(String, DiagnosticCode)] = [
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: [njwt]\n", .wrongType),
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {}\n", .wrongType),
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {'a..b': {policy: okta-id-token}}\n", .invalidValue),
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {njwt: {policy: a, token: {}}}\n", .conflict),
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {njwt: {policy: pkce-s256}}\n", .invalidValue),
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {njwt: {policy: nowhere}}\n", .baseMissing),
            ("token:\n  algorithms: [ES256]\n  keys: {pem_file: keys/test-es256.pub.pem}\n  embedded_tokens: {njwt: {policy: ../../outside.yaml}}\n", .fileOutsideRoots),
        ]
        for (text, code) in cases {
            let found = CompileErrorTests.diagnosticsBesideBundledPolicies("policy: p\n" + text)
            #expect(found.contains { $0.code == code && $0.severity == .error }, "\(text): \(found.map(\.description))")
        }
        let cycle = try CompileErrorTests.loneFileProblems("policy: a\ntoken:\n  algorithms: [ES256]\n  keys: {jwk: {kty: oct, k: AAAA}}\n  embedded_tokens: {njwt: {policy: a}}\n")
        #expect(cycle?.items.contains { $0.message.contains("nests policies more than 4 deep") || $0.message.contains("does not compile") } == true)
    }
}
