import PolicyEngine
@testable import Rules
import Testing

@Suite("Rules catalog")
struct BuiltinRulesTests {
    /// The token keys docs/policy-format.md documents; the registry must hold exactly these.
    static let documentedTokenKeys: Set<String> = [
        "algorithms", "typ", "header", "crit", "issuer", "audience", "trusted_audiences", "authorized_party",
        "subject", "nonce", "expires", "not_before", "issued_at", "max_lifetime", "c_hash", "at_hash",
        "require", "claims", "keys", "leeway", "limits",
    ]

    @Test("the token section accepts exactly the documented keys")
    func tokenKeys() throws {
        let section = try #require(BuiltinRules.registry.sections["token"])
        #expect(Set(section.keys) == Self.documentedTokenKeys)
        #expect(section.keys.count == Self.documentedTokenKeys.count)
    }

    @Test("every finding code is a distinct snake_case string")
    func findingCodes() {
        let codes = FindingCode.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }

    @Test("custom rules register under x- keys only, and never twice")
    func customRules() throws {
        let registry = try BuiltinRules.registry.registering(TenantRule.self, in: "token")
        #expect(registry.sections["token"]?.rule(named: "x-tenant") != nil)
        #expect(throws: RuleRegistry.RegistrationError.self) { try registry.registering(TenantRule.self, in: "token") }
        #expect(throws: RuleRegistry.RegistrationError.self) { try BuiltinRules.registry.registering(UnprefixedRule.self, in: "token") }
        let policy = try PolicyCompiler(registry: registry).compile(text: """
        policy: custom
        token:
          algorithms: [ES256]
          keys: {jwks: \(TokenFixture.shared.jwksJSON)}
          x-tenant: acme
        """, file: "custom.yaml")
        let good = try policy.evaluate(token: TokenFixture.shared.token(["tenant": .string("acme")]), now: TokenFixture.now)
        #expect(good.valid)
        let bad = try policy.evaluate(token: TokenFixture.shared.token(["tenant": .string("other")]), now: TokenFixture.now)
        #expect(bad.codes == [.customRuleFailed])
        #expect(bad.findings.first?.rule == "token.x-tenant")
    }
}

/// A custom rule as a service would register one.
struct TenantRule: Rule {
    static let key = "x-tenant"
    static let summary = "the tenant claim names the expected tenant"
    static let phase = RulePhase.claims
    let tenant: String

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let tenant = compiler.literalString(node, what: "'x-tenant'") else { return [] }
        return [compiler.finish(TenantRule(tenant: tenant), at: node.location)]
    }

    var explanation: String { "tenant is \(tenant)" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        context.token?.claims["tenant"]?.stringValue == tenant ? .pass() : .fail(.customRuleFailed, "wrong tenant")
    }
}

struct UnprefixedRule: Rule {
    static let key = "tenant"
    static let summary = "no prefix"
    static let phase = RulePhase.claims
    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }
    var explanation: String { "" }
    func evaluate(_ context: EvaluationContext) -> RuleOutcome { .pass() }
}
