// A custom rule, registered and compiled by a package outside the engine's (docs/custom-rules.md):
// `x-tenant` holds when the token's `tenant` claim is the one the policy names. Run by
// Scripts/test.sh, it exits 1 unless the rule passes one token and refuses the other.
import Foundation
@_spi(RuleAuthoring) import PolicyEngine

struct TenantRule: Rule {
    static var key: String { "x-tenant" }
    static var summary: String { "the token's tenant claim is the one named" }
    static var phase: RulePhase { .claims }
    static var argumentShape: ArgumentShape { .string }         // for `policy-run schema`
    static var findingCodes: [FindingCode] { [.tenantMismatch] }
    let tenant: String

    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
        guard let node, let tenant = compiler.literalString(node, what: "'x-tenant'") else { return [] }
        return [compiler.finish(TenantRule(tenant: tenant), at: node.location)]
    }

    var explanation: String { "the tenant claim is '\(tenant)'" }

    func evaluate(_ context: EvaluationContext) -> RuleOutcome {
        guard let claim = context.token?.claims["tenant"]?.stringValue else { return .fail(.tenantMismatch, "the token names no tenant") }
        return claim.isExactly(tenant) ? .pass() : .fail(.tenantMismatch, "the token is for tenant '\(claim)', not '\(tenant)'")
    }
}

extension FindingCode {
    static let tenantMismatch = FindingCode("x_tenant_mismatch")
}

let policyText = """
    policy: acme-tokens
    token:
      algorithms: [HS256]
      keys: {jwk: {kty: oct, k: YW4tZXhhbXBsZS1zZWNyZXQtb2YtMzItYnl0ZXMtb2s}}
      issuer: https://issuer.example
      x-tenant: acme
    """
let registry = try RuleRegistry.builtin.registering(TenantRule.self, in: "token")
let policy = try PolicyCompiler(registry: registry).compile(text: policyText, file: "acme-tokens.yaml")

let acme = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiYWxpY2UiLCJ0ZW5hbnQiOiJhY21lIiwiaWF0IjoxNzk1MjUwMDAwLCJleHAiOjE3OTUyNjAwMDB9.3ez4UDBLvKBq-d3TgDutEEjpxU6d6DNMf-7VCxrtQ1c"
let other = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiYWxpY2UiLCJ0ZW5hbnQiOiJvdGhlciIsImlhdCI6MTc5NTI1MDAwMCwiZXhwIjoxNzk1MjYwMDAwfQ.9rth9G6vhhC0ofF9MyzcyknuwdkN5oDtxqm8w4Hz5sU"
let accepted = try policy.evaluateNow(token: acme, now: 1_795_255_000)
let refused = try policy.evaluateNow(token: other, now: 1_795_255_000)
print("acme:", accepted.valid ? "valid" : accepted.codes.map(\.rawValue).joined(separator: ", "))
print("other:", refused.valid ? "valid" : refused.codes.map(\.rawValue).joined(separator: ", "))
if !accepted.valid || refused.codes != [.tenantMismatch] || refused.findings.first?.rule != "token.x-tenant" {
    print("error: the custom rule did not decide as expected")
    exit(1)
}
