@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// Rules the compiler adds without their key being written (`expires`, `crit`, `not_before`,
/// `issued_at`, the registered claim types) are located at their section's key, `token:`: the
/// mapping they belong to, not whichever key the author happened to write first.
@Suite("Implicit rule locations")
struct ImplicitRuleLocationTests {
    static let text = """
    policy: p
    token:
      algorithms: [ES256]
      keys: {jwks: \(TokenFixture.shared.jwksJSON)}
      issuer: https://issuer.example
      not_before: required
    request:
      method: GET
    callback:
      state: s
    """

    @Test("implicit token, request and callback rules are at their section's key; written ones at their own")
    func locations() throws {
        let policy = try Policy.load(text: Self.text, file: "p.yaml", environment: [:])
        let at = Dictionary(policy.root.rules.map { ($0.id, "\($0.location.line):\($0.location.column)") }) { first, _ in first }
        for implicit in ["token.expires", "token.crit", "token.issued_at", "token.claim_types"] {
            #expect(at[implicit] == "2:1", "\(implicit) at \(at[implicit] ?? "nowhere")")
        }
        #expect(at["request.structure"] == "7:1")
        #expect(at["callback.response"] == "9:1")
        #expect(at["token.not_before"] == "6:15")
        #expect(at["token.issuer"] == "5:11")
    }

    @Test("a finding of an implicit rule points at token:")
    func finding() async throws {
        let policy = try TokenFixture.shared.policy("leeway: 0")
        let verdict = try await policy.evaluate(token: TokenFixture.shared.token(), now: UnixTime(seconds: TokenFixture.now + 7200))
        let expired = try #require(verdict.findings.first { $0.code == .tokenExpired })
        // TokenFixture's policy: `policy`, `mode`, a blank line for no inputs, then `token:` on line 4.
        #expect(expired.at == "test.yaml:4:1", "\(expired.at)")
    }
}
