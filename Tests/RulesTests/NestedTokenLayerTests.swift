@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// Tokens nested in signed tokens (`cty: JWT`, RFC 7519 §7.2 step 8): every layer is verified,
/// the claims judged are the innermost token's, and the depth is bounded by `limits.max_layers`.
@Suite("Nested signed tokens")
struct NestedTokenLayerTests {
    static let fixture = TokenFixture.shared
    static let now = UnixTime(seconds: TokenFixture.now)
    static let gateway = try! JWK.generate(for: .eddsa, kid: "gw")
    static let wrapKey = [UInt8](repeating: 0x2A, count: 32)

    /// `inner` signed again as the payload of a JWS with `cty` (JWT unless given).
    static func wrap(_ inner: String, signer: JWK = fixture.key, algorithm: JWSAlgorithm = .es256, kid: String = "k1", cty: String = "JWT",
                     extra: [String: JSONValue] = [:]) throws -> String {
        var header = JSONObject(["cty": .string(cty), "kid": .string(kid)])
        for name in extra.keys.sorted() { header.set(name, extra[name]!) }
        return try CompactJWS.sign(payload: Array(inner.utf8), header: header, algorithm: algorithm, key: signer)
    }

    static var gatewayJWKS: String {
        let key = try! gateway.publicKey.publicJSON()
        return String(decoding: JSONValue.object(JSONObject(["keys": .array([.object(key)])])).serializedBytes(), as: UTF8.self)
    }

    @Test("a JWS in a JWS, and in two, verifies every layer and judges the innermost claims")
    func twoAndThreeLevels() throws {
        let policy = try Self.fixture.policy("issuer: https://issuer.example")
        let inner = try Self.fixture.token()
        let two = try Self.wrap(inner)
        let three = try Self.wrap(two)
        for (name, token) in [("two", two), ("three", three)] {
            let verdict = try policy.evaluateNow(token: token, now: Self.now, trace: true)
            #expect(verdict.valid && verdict.verified, "\(name): \(verdict.findings.map(\.message))")
            let detail = verdict.trace?.entries.first { $0.rule == "token.keys" }?.detail ?? ""
            #expect(detail.contains("layer 1 of \(name == "two" ? 2 : 3) (the outermost): verified ES256"), "\(name): \(detail)")
        }
        // The claims are the innermost token's: a wrong issuer inside fails, whatever wraps it.
        let wrongIssuer = try Self.wrap(Self.fixture.token(["iss": .string("https://evil.example")]))
        #expect(try policy.evaluateNow(token: wrongIssuer, now: Self.now).codes == [.issuerMismatch])
        // cty compares as a media type.
        #expect(try policy.evaluateNow(token: Self.wrap(inner, cty: "application/jwt"), now: Self.now).valid)
    }

    @Test("a forged layer anywhere fails the signature, naming the layer")
    func forgedLayers() throws {
        let policy = try Self.fixture.policy("")
        let inner = try Self.fixture.token()
        let forgedOuter = try Self.wrap(inner, signer: Self.fixture.otherKey)
        let outerVerdict = try policy.evaluateNow(token: forgedOuter, now: Self.now)
        #expect(outerVerdict.codes == [.signatureInvalid] && !outerVerdict.verified)
        #expect(outerVerdict.findings.first?.message.hasPrefix("layer 1 of 2 (the outermost): the ES256 signature does not verify") == true,
                "\(outerVerdict.findings.map(\.message))")

        let forgedInner = try Self.wrap(Self.wrap(Self.fixture.token(signer: Self.fixture.otherKey)))
        let innerVerdict = try policy.evaluateNow(token: forgedInner, now: Self.now)
        #expect(innerVerdict.codes == [.signatureInvalid] && !innerVerdict.verified)
        #expect(innerVerdict.findings.first?.message.hasPrefix("the claims' token (layer 3):") == true, "\(innerVerdict.findings.map(\.message))")
    }

    @Test("limits.max_layers bounds the depth; 1 follows no nesting")
    func depthLimit() throws {
        let three = try Self.wrap(Self.wrap(Self.fixture.token()))
        let two = try Self.fixture.policy("limits: {max_layers: 2}")
        let refused = try two.evaluateNow(token: three, now: Self.now)
        #expect(refused.codes == [.tokenTooDeep] && !refused.verified)
        #expect(refused.findings.first?.message == "the token nests more than 2 layers (limits.max_layers)")
        #expect(try two.evaluateNow(token: Self.wrap(Self.fixture.token()), now: Self.now).valid)

        let flat = try Self.fixture.policy("limits: {max_layers: 1}")
        #expect(try flat.evaluateNow(token: Self.wrap(Self.fixture.token()), now: Self.now).codes == [.tokenTooDeep])
        #expect(try flat.evaluateNow(token: Self.fixture.token(), now: Self.now).valid)

        // The default is 3, and a fourth layer is refused before any signature is checked.
        let four = try Self.wrap(three)
        #expect(try Self.fixture.policy("").evaluateNow(token: four, now: Self.now).codes == [.tokenTooDeep])
    }

    @Test("outer_layers names the keys and algorithms of the layers around the claims")
    func outerLayers() throws {
        let policy = try Self.fixture.policy("outer_layers: {keys: {jwks: \(Self.gatewayJWKS)}, algorithms: [EdDSA]}")
        let inner = try Self.fixture.token()
        let viaGateway = try Self.wrap(inner, signer: Self.gateway, algorithm: .eddsa, kid: "gw")
        let verdict = try policy.evaluateNow(token: viaGateway, now: Self.now, trace: true)
        #expect(verdict.valid, "\(verdict.findings.map(\.message))")
        #expect(verdict.trace?.key?.kid == "k1", "the verdict's key is the one that signed the claims")

        // The issuer's own key no longer signs the outer layer, and its algorithm is not allowed there.
        let issuerWrapped = try policy.evaluateNow(token: Self.wrap(inner), now: Self.now)
        #expect(issuerWrapped.codes == [.algNotAllowed], "\(issuerWrapped.findings.map(\.message))")
        #expect(issuerWrapped.findings.first?.message.contains("layer 1 of 2 (the outermost) is signed with alg ES256") == true)
        // Written, outer_layers requires the gateway's layer: the issuer's token alone is not enough.
        let bare = try policy.evaluateNow(token: inner, now: Self.now)
        #expect(bare.codes == [.layerMissing] && !bare.valid, "\(bare.findings.map(\.message))")
        #expect(bare.findings.first?.message.contains("outer_layers (test.yaml:7:17) requires one") == true, "\(bare.findings.map(\.message))")
        let optional = try Self.fixture.policy("outer_layers: {keys: {jwks: \(Self.gatewayJWKS)}, algorithms: [EdDSA], required: false}")
        #expect(try optional.evaluateNow(token: inner, now: Self.now).valid)
        #expect(try optional.evaluateNow(token: viaGateway, now: Self.now).valid)
        // The gateway's key does not sign the claims.
        let gatewayInside = try Self.wrap(Self.fixture.token(signer: Self.gateway, algorithm: .eddsa), signer: Self.gateway, algorithm: .eddsa, kid: "gw")
        #expect(try policy.evaluateNow(token: gatewayInside, now: Self.now).codes.contains(.algNotAllowed))
    }

    @Test("JWE(JWS(JWS)) under format nested: decrypt, then verify both signatures")
    func encryptedAroundNested() throws {
        let policy = try Policy.load(text: """
            policy: enc
            token:
              format: nested
              algorithms: [ES256]
              keys: {jwks: \(Self.fixture.jwksJSON)}
              decryption: {algorithms: [A256KW], encryption: [A256GCM], key: {secret: '${env:WRAP_KEY}'}}
            """, file: "enc.yaml", environment: EncryptedTokenTests.environment)
        func encrypted(_ jws: String) throws -> String {
            try CompactJWE.encrypt(Array(jws.utf8), to: JWK(secret: Self.wrapKey), keyAlgorithm: .a256KW, contentEncryption: .a256GCM,
                                   header: JSONObject(["cty": .string("JWT")]))
        }
        let verdict = try policy.evaluateNow(token: encrypted(Self.wrap(Self.fixture.token())), now: Self.now, trace: true)
        #expect(verdict.valid, "\(verdict.findings.map(\.message))")
        #expect(verdict.trace?.entries.first?.rule == "token.decryption")
        #expect(verdict.trace?.entries.first { $0.rule == "token.keys" }?.detail?.contains("layer 2 of 3 (around the claims): verified ES256") == true)

        let forged = try encrypted(Self.wrap(Self.fixture.token(), signer: Self.fixture.otherKey))
        #expect(try policy.evaluateNow(token: forged, now: Self.now).codes == [.signatureInvalid])
        // Four layers is past the default of three.
        #expect(try policy.evaluateNow(token: encrypted(Self.wrap(Self.wrap(Self.fixture.token()))), now: Self.now).codes == [.tokenTooDeep])
    }

    @Test("what a layer may not carry fails before any rule runs")
    func refusedLayers() throws {
        let policy = try Self.fixture.policy("")
        let inner = try Self.fixture.token()
        let critical = try Self.wrap(inner, extra: ["crit": .array([.string("x")]), "x": .bool(true)])
        let critVerdict = try policy.evaluateNow(token: critical, now: Self.now)
        #expect(critVerdict.codes == [.critUnsupported], "\(critVerdict.findings.map(\.message))")

        let jwe = try CompactJWE.encrypt(Array(inner.utf8), to: JWK(secret: Self.wrapKey), keyAlgorithm: .a256KW, contentEncryption: .a256GCM)
        let aroundJWE = try policy.evaluateNow(token: Self.wrap(jwe), now: Self.now)
        #expect(aroundJWE.codes == [.malformedToken])
        #expect(aroundJWE.findings.first?.message.contains("layer 2 of the token is a JWE, and this policy decrypts nothing") == true)

        // cty: JWT over claims that are no token, and a nested token without cty: each message says which.
        let claimsAsJWT = try CompactJWS.sign(payload: Array(#"{"iss":"https://issuer.example"}"#.utf8),
                                              header: JSONObject(["cty": .string("JWT"), "kid": .string("k1")]), algorithm: .es256, key: Self.fixture.key)
        let claimsVerdict = try policy.evaluateNow(token: claimsAsJWT, now: Self.now)
        #expect(claimsVerdict.codes == [.malformedToken])
        #expect(claimsVerdict.findings.first?.message == "layer 1 says cty: JWT, and its payload is a JSON object, not a compact JWT; a JWS whose payload is the claims has no cty: JWT")
        let withoutCty = try CompactJWS.sign(payload: Array(inner.utf8), header: JSONObject(["kid": .string("k1")]), algorithm: .es256, key: Self.fixture.key)
        let ctyVerdict = try policy.evaluateNow(token: withoutCty, now: Self.now)
        #expect(ctyVerdict.codes == [.malformedToken])
        #expect(ctyVerdict.findings.first?.message.hasSuffix("the payload looks like a compact token: a JWS that nests one says cty: JWT in its header") == true,
                "\(ctyVerdict.findings.map(\.message))")
    }

    @Test("lint warns when no outer_layers key can verify the algorithms allowed around the claims")
    func outerKeysLint() throws {
        let policy = try Self.fixture.policy("outer_layers: {keys: {jwks: \(Self.fixture.jwksJSON)}, algorithms: [EdDSA]}")
        #expect(policy.warnings.contains { $0.code == .keySource && $0.message.contains("can verify EdDSA") && $0.location.line == 7 },
                "\(policy.warnings.map(\.description))")
    }

    @Test("compile errors in max_layers and outer_layers", arguments: [
        ("limits: {max_layers: 0}", DiagnosticCode.invalidValue),
        ("limits: {max_layers: 9}", .invalidValue),
        ("limits: {max_layers: 1}\n  outer_layers: {algorithms: [ES256]}", .conflict),
        ("outer_layers: {algorithms: [none]}", .invalidValue),
        ("outer_layers: {keyz: {jwks_file: x.json}}", .unknownKey),
        ("outer_layers: {required: yes}", .wrongType),
    ] as [(String, DiagnosticCode)])
    func compileErrors(_ row: (String, DiagnosticCode)) {
        let text = "policy: n\ntoken:\n  algorithms: [ES256]\n  keys: {jwks: \(Self.fixture.jwksJSON)}\n  \(row.0)\n"
        let found = CompileErrorTests.diagnostics(text, environment: [:])
        #expect(found.contains { $0.code == row.1 && $0.location.line >= 5 }, "got \(found.map(\.description))")
    }
}
