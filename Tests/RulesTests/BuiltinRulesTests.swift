import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
@testable import Rules
import Testing

@Suite("Rules catalog")
struct BuiltinRulesTests {
    /// The keys of the `token` table in docs/policy-format.md section 2, read from the doc itself
    /// so the registry and the user's reference cannot drift apart.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func documentedTokenKeys() throws -> [String] {
        let docs = packageRoot.appendingPathComponent("docs/policy-format.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try #require(text.range(of: "## 2. `token`").flatMap { start in
            text.range(of: "\n## 3.", options: .regularExpression, range: start.upperBound..<text.endIndex).map { text[start.upperBound..<$0.lowerBound] }
        })
        return section.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("| `") else { return nil }
            return line.dropFirst(3).prefix { $0 != "`" }.description
        }
    }

    @Test("the token section accepts exactly the keys docs/policy-format.md documents")
    func tokenKeys() throws {
        let section = try #require(BuiltinRules.registry.sections["token"])
        let documented = try Self.documentedTokenKeys()
        #expect(documented.count >= 20)
        #expect(Set(section.keys) == Set(documented))
        #expect(section.keys.count == documented.count)
    }

    @Test("every finding code is declared once, is snake_case and is listed with its kind in docs/policy-format.md §8")
    func findingCodes() throws {
        let codes = BuiltinRules.findingCodes
        #expect(codes.count >= 60)
        #expect(Set(codes.map(\.rawValue)).count == codes.count, "a code is declared twice")
        #expect(codes.allSatisfy { FindingCode.isWellFormed($0.rawValue) && !$0.rawValue.hasPrefix("x_") })
        let docs = try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/policy-format.md"), encoding: .utf8)
        let section = try #require(docs.components(separatedBy: "## 8. Verdicts").last?.components(separatedBy: "## 9.").first)
        for code in codes {
            let row = section.components(separatedBy: "\n").first { $0.hasPrefix("| `\(code.rawValue)` |") }
            #expect(row != nil, "\(code.rawValue) is not in the table of section 8")
            #expect(row?.contains("| \(code.kind) |") ?? true, "section 8 gives \(code.rawValue) another kind than \(code.kind)")
        }
    }

    @Test("every rule lists the codes it reports; they are catalog codes, and a compiled rule reports a subset")
    func ruleFindingCodes() throws {
        let catalog = Set(BuiltinRules.findingCodes.map(\.rawValue))
        for section in BuiltinRules.registry.sections.values {
            for rule in section.rules {
                #expect(!rule.findingCodes.isEmpty, "\(section.name).\(rule.key) lists no finding code")
                for code in rule.findingCodes { #expect(catalog.contains(code.rawValue), "\(rule.key) lists \(code.rawValue), not in the catalog") }
            }
        }
        let policies = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent("Policies").path)
            .filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".test.yaml") }
        #expect(policies.count >= 10)
        for file in policies {
            let policy = try Policy.load(file: Self.packageRoot.appendingPathComponent("Policies/\(file)").path)
            for compiled in policy.root.rules {
                let declared = Set(type(of: compiled.rule).findingCodes.map(\.rawValue))
                #expect(compiled.rule.reportableCodes.allSatisfy { declared.contains($0.rawValue) }, "\(file): \(compiled.id)")
            }
        }
    }

    @Test("every built-in code named *_missing reports an absence, so any_of never prefers it to a mismatch")
    func missingCodesAreAbsences() {
        let missing = BuiltinRules.findingCodes.filter { $0.rawValue.hasSuffix("_missing") && !$0.rawValue.hasPrefix("record_") }
        #expect(missing.count >= 8)
        for code in missing { #expect(code.kind == .absent, "\(code.rawValue) is \(code.kind)") }
    }

    @Test("malformed codes are refused; the kind is not part of a code's identity")
    func findingCodeShape() throws {
        #expect(!FindingCode.isWellFormed("Token_Expired") && !FindingCode.isWellFormed("token__expired")
            && !FindingCode.isWellFormed("_x") && !FindingCode.isWellFormed("") && !FindingCode.isWellFormed("9lives"))
        #expect(FindingCode("claim_missing") == .claimMissing && FindingCode.claimMissing.kind == .absent)
        let decoded = try JSONDecoder().decode([FindingCode].self, from: Data(#"["token_expired"]"#.utf8))
        #expect(decoded == [.tokenExpired])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([FindingCode].self, from: Data(#"["Not A Code"]"#.utf8)) }
    }

    @Test("custom rules register under x- keys only, and never twice")
    func customRules() throws {
        let registry = try RuleRegistry.builtin.registering(TenantRule.self, in: "token")
        #expect(registry.sections["token"]?.rule(named: "x-tenant") != nil)
        #expect(throws: RuleRegistry.RegistrationError.self) { try registry.registering(TenantRule.self, in: "token") }
        #expect(throws: RuleRegistry.RegistrationError.self) { try RuleRegistry.builtin.registering(UnprefixedRule.self, in: "token") }
        let policy = try PolicyCompiler(registry: registry).compile(text: """
        policy: custom
        token:
          algorithms: [ES256]
          keys: {jwks: \(TokenFixture.shared.jwksJSON)}
          x-tenant: acme
        """, file: "custom.yaml")
        let good = try policy.evaluateNow(token: TokenFixture.shared.token(["tenant": .string("acme")]), now: UnixTime(seconds: TokenFixture.now))
        #expect(good.valid)
        let bad = try policy.evaluateNow(token: TokenFixture.shared.token(["tenant": .string("other")]), now: UnixTime(seconds: TokenFixture.now))
        #expect(bad.codes == [.customRuleFailed])
        #expect(bad.findings.first?.rule == "token.x-tenant")
    }
}

/// A custom rule as a service would register one.
struct TenantRule: Rule {
    static let key = "x-tenant"
    static let summary = "the tenant claim names the expected tenant"
    static let phase = RulePhase.claims
    static let findingCodes = [FindingCode.customRuleFailed]
    static let argumentShape = ArgumentShape.string
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
    static let findingCodes: [FindingCode] = []
    static let argumentShape = ArgumentShape.any
    static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }
    var explanation: String { "" }
    func evaluate(_ context: EvaluationContext) -> RuleOutcome { .pass() }
}
