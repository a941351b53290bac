import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// "Valid only if verified", on the engine alone: a registry whose only rule always passes,
/// and the engine's own `keys`.
@Suite("Verification gate")
struct VerificationGateTests {
    /// A catalog rule that passes every token; it has no way to claim a verification.
    struct AlwaysPasses: Rule {
        static let key = "x-always"
        static let summary = "passes"
        static let phase = RulePhase.claims
        static let findingCodes: [FindingCode] = []
        static let argumentShape = ArgumentShape.any
        static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] {
            node.map { [compiler.finish(AlwaysPasses(), at: $0.location)] } ?? []
        }
        var explanation: String { "passes" }
        func evaluate(_ context: EvaluationContext) -> RuleOutcome { .pass() }
    }

    static let registry = RuleRegistry(sections: [RuleRegistry.Section(name: "token", rules: [AlwaysPasses.self])])

    static func policy(trusting key: JWK) throws -> Policy {
        let jwks = JSONValue.object(JSONObject(["keys": .array([.object(try key.publicKey.publicJSON())])])).serialized()
        return try PolicyCompiler(registry: registry).compile(text: """
            policy: gate
            token:
              algorithms: [ES256]
              keys: {jwks: \(jwks)}
              x-always: true
            """, file: "gate.yaml")
    }

    @Test("every token section has the engine's keys rule, whatever the registry lists")
    func keysAlwaysRegistered() throws {
        let section = try #require(Self.registry.sections["token"])
        #expect(section.rule(named: "keys") != nil)
        #expect(section.rules.filter { $0.key == "keys" }.count == 1)
    }

    @Test("a token every rule passes is valid only when the engine verified it with an allowed key")
    func gate() throws {
        let trusted = try JWK.generate(for: .es256, kid: "k1"), stranger = try JWK.generate(for: .es256, kid: "k1")
        let policy = try Self.policy(trusting: trusted)
        let claims = Array(#"{"exp":4102444800}"#.utf8)
        let header = JSONObject(["kid": .string("k1")])
        let genuine = try policy.evaluateNow(token: CompactJWS.sign(payload: claims, header: header, algorithm: .es256, key: trusted), now: 1_800_000_000)
        #expect(genuine.valid && genuine.verified && genuine.proof?.key.kid == "k1")
        let forged = try policy.evaluateNow(token: CompactJWS.sign(payload: claims, header: header, algorithm: .es256, key: stranger), now: 1_800_000_000)
        #expect(!forged.valid && !forged.verified && forged.proof == nil)
        #expect(forged.codes.map(\.rawValue) == ["signature_invalid"])
    }

    @Test("a verdict read back from JSON carries no proof, so it cannot vouch for a token")
    func decodedVerdictHasNoProof() throws {
        let key = try JWK.generate(for: .es256, kid: "k1")
        let verdict = try Self.policy(trusting: key).evaluateNow(
            token: CompactJWS.sign(payload: Array(#"{"exp":4102444800}"#.utf8), header: JSONObject(["kid": .string("k1")]), algorithm: .es256, key: key),
            now: 1_800_000_000)
        #expect(verdict.proof != nil)
        let decoded = try JSONDecoder().decode(Verdict.self, from: JSONEncoder().encode(verdict))
        #expect(decoded.verified && decoded.proof == nil)
    }
}
