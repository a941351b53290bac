@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// Keys generated once per test run and tokens signed with them, so rule tests state claims and
/// expectations only. The signatures are real: a rule test that passes also verified one.
struct TokenFixture: Sendable {
    static let shared = try! TokenFixture()
    /// 2026-11-21T09:30:00Z.
    static let now: Double = 1_795_253_400

    let key: JWK
    let otherKey: JWK
    let jwksJSON: String

    init() throws {
        key = try JWK.generate(for: .es256, kid: "k1")
        otherKey = try JWK.generate(for: .es256, kid: "k1")
        let publicKey = try key.publicKey.publicJSON()
        jwksJSON = String(decoding: JSONValue.object(JSONObject(["keys": .array([.object(publicKey)])])).serializedBytes(), as: UTF8.self)
    }

    /// Claims every test starts from: a valid ID token at `now`.
    static let baseClaims: [(String, JSONValue)] = [
        ("iss", .string("https://issuer.example")), ("sub", .string("user-1")), ("aud", .string("client-1")),
        ("iat", .number(.integer(1_795_251_600))), ("exp", .number(.integer(1_795_255_200))), ("nonce", .string("n-123")),
    ]

    /// A token with the base claims, `changes` applied (a `.null` from `remove` deletes a claim).
    func token(_ changes: [String: JSONValue] = [:], remove: [String] = [], header: [String: JSONValue] = [:], signer: JWK? = nil, algorithm: JWSAlgorithm = .es256) throws -> String {
        var claims = JSONObject()
        for (name, value) in Self.baseClaims where !remove.contains(name) { claims.set(name, value) }
        for name in changes.keys.sorted() { claims.set(name, changes[name]!) }
        var headerObject = JSONObject(["typ": .string("JWT"), "kid": .string("k1")])
        for name in header.keys.sorted() { headerObject.set(name, header[name]!) }
        return try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), header: headerObject, algorithm: algorithm, key: signer ?? key)
    }

    /// A policy with the fixture's key and `body` appended to the token section.
    func policy(_ body: String, inputs: String = "", rules: String = "", mode: String = "collect_all") throws -> Policy {
        let text = """
        policy: test
        mode: \(mode)
        \(inputs.isEmpty ? "" : "inputs:\n" + inputs)
        token:
          algorithms: [ES256]
          keys: {jwks: \(jwksJSON)}
        \(body.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        \(rules.isEmpty ? "" : "rules:\n" + rules)
        """
        return try Policy.load(text: text, file: "test.yaml", environment: [:])
    }
}
