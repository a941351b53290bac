@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// One table row: a policy body, a token change, and the finding codes the verdict must hold.
struct RuleCase: Sendable, CustomTestStringConvertible {
    let name: String
    let body: String
    var inputs: String = ""
    var vars: [String: JSONValue] = [:]
    var claims: [String: JSONValue] = [:]
    var remove: [String] = []
    var header: [String: JSONValue] = [:]
    var now = UnixTime(seconds: TokenFixture.now)
    let codes: [FindingCode]

    var testDescription: String { name }
}

@Suite("Token rules")
struct TokenRuleTests {
    static let fixture = TokenFixture.shared
    static let later = TokenFixture.now + 3600

    static let cases: [RuleCase] = [
        RuleCase(name: "a valid token passes every default rule", body: "issuer: https://issuer.example", codes: []),
        // Issuer and audience
        RuleCase(name: "issuer mismatch", body: "issuer: https://other.example", codes: [.issuerMismatch]),
        RuleCase(name: "issuer compared exactly, no trailing-slash folding", body: "issuer: https://issuer.example/", codes: [.issuerMismatch]),
        RuleCase(name: "issuer list", body: "issuer: [https://a.example, https://issuer.example]", codes: []),
        RuleCase(name: "issuer required when configured", body: "issuer: https://issuer.example", remove: ["iss"], codes: [.claimMissing]),
        RuleCase(name: "audience in an array", body: "audience: client-1", claims: ["aud": .array([.string("x"), .string("client-1")])], codes: []),
        RuleCase(name: "audience mismatch", body: "audience: client-2", codes: [.audienceMismatch]),
        RuleCase(name: "audience missing", body: "audience: client-1", remove: ["aud"], codes: [.claimMissing]),
        RuleCase(name: "untrusted extra audience", body: "audience: client-1\ntrusted_audiences: [api]",
                 claims: ["aud": .array([.string("client-1"), .string("evil")]), "azp": .string("client-1")], codes: [.audienceUntrusted]),
        RuleCase(name: "a wrong lone audience is one finding, not also untrusted", body: "audience: client-1\ntrusted_audiences: []",
                 claims: ["aud": .string("evil")], codes: [.audienceMismatch]),
        RuleCase(name: "a missing audience is one finding", body: "audience: client-1\ntrusted_audiences: []", remove: ["aud"], codes: [.claimMissing]),
        RuleCase(name: "trusted extra audience", body: "audience: client-1\ntrusted_audiences: [api]",
                 claims: ["aud": .array([.string("client-1"), .string("api")])], codes: []),
        RuleCase(name: "azp required with several audiences", body: "authorized_party: client-1",
                 claims: ["aud": .array([.string("client-1"), .string("api")])], codes: [.azpMissing]),
        RuleCase(name: "azp mismatch", body: "authorized_party: client-1", claims: ["azp": .string("other")], codes: [.azpMismatch]),
        RuleCase(name: "azp optional with one audience", body: "authorized_party: client-1", codes: []),
        // Subject and nonce
        RuleCase(name: "subject matcher", body: "subject: {prefix: user-}", codes: []),
        RuleCase(name: "subject mismatch", body: "subject: {prefix: admin-}", codes: [.subjectMismatch]),
        RuleCase(name: "nonce from an input", body: "nonce: ${nonce}", inputs: "  nonce: {}", vars: ["nonce": .string("n-123")], codes: []),
        RuleCase(name: "nonce mismatch", body: "nonce: ${nonce}", inputs: "  nonce: {}", vars: ["nonce": .string("n-999")], codes: [.nonceMismatch]),
        RuleCase(name: "an input of the wrong type", body: "nonce: ${nonce}", inputs: "  nonce: {}", vars: ["nonce": .number(.integer(5))], codes: [.inputInvalid]),
        RuleCase(name: "nonce missing from the token", body: "nonce: n-123", remove: ["nonce"], codes: [.claimMissing]),
        // Times
        RuleCase(name: "expired", body: "leeway: 0", now: UnixTime(seconds: TokenFixture.now + 1801), codes: [.tokenExpired]),
        RuleCase(name: "expired but within the leeway", body: "leeway: 5m", now: UnixTime(seconds: TokenFixture.now + 1801), codes: []),
        RuleCase(name: "a quoted number of seconds is a leeway, as fmt writes it", body: "leeway: '300'", now: UnixTime(seconds: TokenFixture.now + 1801), codes: []),
        RuleCase(name: "a quoted leeway of 0 seconds", body: "leeway: \"0\"", now: UnixTime(seconds: TokenFixture.now + 1801), codes: [.tokenExpired]),
        RuleCase(name: "exp required by default", body: "", remove: ["exp"], codes: [.claimMissing]),
        RuleCase(name: "exp optional", body: "expires: optional", remove: ["exp"], codes: []),
        RuleCase(name: "not yet valid", body: "leeway: 0", claims: ["nbf": .number(.integer(1_795_254_000))], codes: [.tokenNotYetValid]),
        RuleCase(name: "nbf required", body: "not_before: required", codes: [.claimMissing]),
        RuleCase(name: "iat in the future", body: "leeway: 10s\nissued_at: {required: true}", claims: ["iat": .number(.integer(1_795_253_500))], codes: [.iatInFuture]),
        RuleCase(name: "too old", body: "leeway: 0\nissued_at: {max_age: 10m}", codes: [.tokenTooOld]),
        RuleCase(name: "too old, max_age in quoted seconds", body: "leeway: 0\nissued_at: {max_age: '600'}", codes: [.tokenTooOld]),
        RuleCase(name: "max_age needs iat", body: "issued_at: {max_age: 1h}", remove: ["iat"], codes: [.claimMissing]),
        RuleCase(name: "lifetime too long", body: "max_lifetime: 30m", codes: [.lifetimeTooLong]),
        RuleCase(name: "lifetime from nbf without iat", body: "max_lifetime: 2h", claims: ["nbf": .number(.integer(1_795_251_600))], remove: ["iat"], codes: []),
        RuleCase(name: "an exp of the wrong type is claim_types' finding, not also max_lifetime's", body: "max_lifetime: 1h",
                 claims: ["exp": .string("1795255200")], codes: [.claimType]),
        RuleCase(name: "an iat of the wrong type leaves max_lifetime undecided", body: "max_lifetime: 1h",
                 claims: ["iat": .bool(true)], codes: [.claimType]),
        RuleCase(name: "decimal dates are numbers", body: "", claims: ["exp": .number(.decimal(1_795_255_200.5))], codes: []),
        // Registered claim types
        RuleCase(name: "exp as a string", body: "", claims: ["exp": .string("1795255200")], codes: [.claimType]),
        RuleCase(name: "aud null", body: "audience: client-1", claims: ["aud": .null], codes: [.claimType]),
        RuleCase(name: "huge exp", body: "", claims: ["exp": .number(.bigInteger("99999999999999999999999"))], codes: [.claimType]),
        RuleCase(name: "exp out of date range", body: "", claims: ["exp": .number(.decimal(1e300))], codes: [.claimType]),
        RuleCase(name: "iss as a number", body: "", claims: ["iss": .number(.integer(5))], codes: [.claimType]),
        // Header
        RuleCase(name: "typ accepted case-insensitively with application/", body: "typ: application/jwt", codes: []),
        RuleCase(name: "typ not allowed", body: "typ: at+jwt", codes: [.typNotAllowed]),
        RuleCase(name: "header matcher", body: "header: {kid: {exists: true}}", codes: []),
        RuleCase(name: "header mismatch", body: "header: {kid: k2}", codes: [.headerMismatch]),
        RuleCase(name: "unknown critical extension", body: "", header: ["exp": .number(.integer(1)), "crit": .array([.string("exp")])], codes: [.critUnsupported]),
        RuleCase(name: "understood critical extension", body: "crit: [exp]", header: ["exp": .number(.integer(1)), "crit": .array([.string("exp")])], codes: []),
        // Claims and require
        RuleCase(name: "require present", body: "require: [sub, nonce]", codes: []),
        RuleCase(name: "require missing", body: "require: [jti]", codes: [.claimMissing]),
        RuleCase(name: "nested claim path", body: "claims: {tenant.region: eu}", claims: ["tenant": .object(JSONObject(["region": .string("eu")]))], codes: []),
        RuleCase(name: "quoted claim name with dots", body: "claims: {'[\"https://example.com/roles\"]': {contains: admin}}",
                 claims: ["https://example.com/roles": .array([.string("admin")])], codes: []),
        RuleCase(name: "claim mismatch", body: "claims: {scp: {contains: write}}", claims: ["scp": .string("read openid")], codes: [.claimMismatch]),
        RuleCase(name: "claim type", body: "claims: {scp: {min: 3}}", claims: ["scp": .string("read")], codes: [.claimType]),
        RuleCase(name: "claim missing", body: "claims: {scp: {contains: read}}", codes: [.claimMissing]),
        RuleCase(name: "collect_all reports every failure", body: "issuer: https://other.example\naudience: nobody\nleeway: 0",
                 now: UnixTime(seconds: TokenFixture.now + 1801), codes: [.tokenExpired, .issuerMismatch, .audienceMismatch]),
    ]

    @Test("rule outcomes", arguments: cases)
    func outcome(_ row: RuleCase) throws {
        let policy = try Self.fixture.policy(row.body, inputs: row.inputs)
        let token = try Self.fixture.token(row.claims, remove: row.remove, header: row.header)
        let verdict = try policy.evaluateNow(token: token, inputs: row.vars, now: row.now)
        #expect(verdict.codes == row.codes, "\(verdict.findings.map(\.message))")
        #expect(verdict.valid == row.codes.isEmpty)
        #expect(verdict.verified)
    }

    @Test("c_hash and at_hash use the hash of the token's alg")
    func halfHashes() throws {
        let code = "Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk"
        let cHash = try #require(OIDCHash.leftHalf(of: code, algorithm: .es256))
        let policy = try Self.fixture.policy("c_hash: ${code}\nat_hash: ${access}", inputs: "  code: {}\n  access: {required: false}")
        let token = try Self.fixture.token(["c_hash": .string(cHash)])
        #expect(try policy.evaluateNow(token: token, inputs: ["code": .string(code)], now: UnixTime(seconds: TokenFixture.now)).valid)
        let wrong = try policy.evaluateNow(token: token, inputs: ["code": .string(code + "x")], now: UnixTime(seconds: TokenFixture.now))
        #expect(wrong.codes == [.cHashMismatch])
        let withAccess = try policy.evaluateNow(token: token, inputs: ["code": .string(code), "access": .string("at")], now: UnixTime(seconds: TokenFixture.now))
        #expect(withAccess.codes == [.claimMissing])
        #expect(withAccess.findings.first?.rule == "token.at_hash")
        let access = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"
        let atHash = try #require(OIDCHash.leftHalf(of: access, algorithm: .es256))
        let both = try Self.fixture.token(["c_hash": .string(cHash), "at_hash": .string(atHash)])
        #expect(try policy.evaluateNow(token: both, inputs: ["code": .string(code), "access": .string(access)], now: UnixTime(seconds: TokenFixture.now)).valid)
        let swapped = try policy.evaluateNow(token: both, inputs: ["code": .string(code), "access": .string(code)], now: UnixTime(seconds: TokenFixture.now))
        #expect(swapped.codes == [.atHashMismatch])
        // A refused alg does not choose the hash: c_hash is not judged, and alg_not_allowed says why.
        let refusedAlg = try Self.fixture.token(["c_hash": .string(cHash)], signer: JWK(secret: [UInt8](repeating: 7, count: 64)), algorithm: .hs512)
        let refused = try policy.evaluateNow(token: refusedAlg, inputs: ["code": .string(code)], now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(refused.codes == [.algNotAllowed])
        #expect(refused.trace?.entries.first { $0.rule == "token.c_hash" }?.status == .notRun)
    }

    @Test("an absent optional input skips its rule and lists it; it never counts as passed")
    func skippedRule() throws {
        let policy = try Self.fixture.policy("nonce: ${nonce}", inputs: "  nonce: {required: false}")
        let verdict = try policy.evaluateNow(token: Self.fixture.token(["nonce": .string("anything")]), now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.valid)
        #expect(verdict.skipped == ["token.nonce"])
        #expect(verdict.trace?.entries.first { $0.rule == "token.nonce" }?.status == .skipped)
    }

    @Test("a required input must be supplied; an undeclared one is refused")
    func inputErrors() throws {
        let policy = try Self.fixture.policy("nonce: ${nonce}", inputs: "  nonce: {}")
        let token = try Self.fixture.token()
        #expect(throws: EvaluationError.self) { try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now)) }
        #expect(throws: EvaluationError.self) { try policy.evaluateNow(token: token, inputs: ["nonce": .string("n-123"), "nonse": .string("x")], now: UnixTime(seconds: TokenFixture.now)) }
    }

    @Test("signature: wrong key, unknown kid, missing kid and a disallowed alg all fail")
    func signatures() throws {
        let policy = try Self.fixture.policy("")
        let forged = try policy.evaluateNow(token: Self.fixture.token(signer: Self.fixture.otherKey), now: UnixTime(seconds: TokenFixture.now))
        #expect(forged.codes == [.signatureInvalid])
        #expect(!forged.verified && !forged.valid)
        let unknownKid = try policy.evaluateNow(token: Self.fixture.token(header: ["kid": .string("k9")]), now: UnixTime(seconds: TokenFixture.now))
        #expect(unknownKid.codes == [.kidUnknown])
        let hmacKey = JWK(secret: Array(repeating: 7, count: 32), kid: "k1")
        let confused = try policy.evaluateNow(token: Self.fixture.token(signer: hmacKey, algorithm: .hs256), now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(confused.codes == [.algNotAllowed])
        #expect(!confused.verified)
        #expect(confused.trace?.entries.first { $0.rule == "token.keys" }?.status == .notRun)
        // The kid names a P-256 key; a P-384 signature cannot use it, and no other key is tried.
        let wider = try Policy.load(text: "policy: wide\ntoken:\n  algorithms: [ES256, ES384]\n  keys: {jwks: \(Self.fixture.jwksJSON)}\n", file: "wide.yaml")
        let p384 = try JWK.generate(for: .es384, kid: "k1")
        let wrongFamily = try wider.evaluateNow(token: Self.fixture.token(signer: p384, algorithm: .es384), now: UnixTime(seconds: TokenFixture.now))
        #expect(wrongFamily.codes == [.keyUnavailable])
    }

    @Test("a trace shows the key source and the rules' comparisons, never the HMAC secret or the authorization code")
    func traceRedaction() throws {
        let secret = "c3VwZXItc2VjcmV0LWhtYWMta2V5LWZvci10aGUtdHJhY2U"
        let code = "the-authorization-code-7f3a"
        let text = "policy: hs\ninputs:\n  code: {}\ntoken:\n  algorithms: [HS256]\n  keys: {secret: '${env:HS_SECRET}'}\n  c_hash: ${code}\n"
        let policy = try Policy.load(text: text, file: "hs.yaml", environment: ["HS_SECRET": secret])
        let key = JWK(secret: try Base64URL.decode(secret))
        let cHash = try #require(OIDCHash.leftHalf(of: code, algorithm: .hs256))
        let token = try Self.fixture.token(["c_hash": .string(cHash)], signer: key, algorithm: .hs256)
        let verdict = try policy.evaluateNow(token: token, inputs: ["code": .string(code)], now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.valid)
        let json = String(decoding: verdict.json.serializedBytes(), as: UTF8.self)
        #expect(json.contains("secret ${env:HS_SECRET}"))
        #expect(json.contains("\"token.c_hash\""))
        #expect(!json.contains(secret) && !json.contains(code))
    }

    @Test("a traced verdict at an instant JSON cannot hold as an integer, or not at all, still serializes")
    func traceAtExtremeInstants() throws {
        let policy = try Self.fixture.policy("")
        let token = try Self.fixture.token()
        let huge = try policy.evaluateNow(token: token, now: 1e300, trace: true)
        #expect(huge.json.objectValue?["trace"]?.objectValue?["clock"]?.objectValue?["now"] == .number(.decimal(1e300)))
        let notANumber = try policy.evaluateNow(token: token, now: UnixTime(seconds: .nan), trace: true)
        #expect(!notANumber.valid)
        #expect(notANumber.json.objectValue?["trace"]?.objectValue?["clock"]?.objectValue?["now"] == .null)
    }

    @Test("malformed, oversized and deeply nested tokens fail with their own codes before any rule runs")
    func structure() throws {
        let policy = try Self.fixture.policy("limits: {max_token_bytes: 2000, max_json_depth: 5}")
        let deep = try Self.fixture.token(["x": .array([.array([.array([.array([.array([])])])])])])
        let cases: [(String, FindingCode)] = [
            ("not-a-token", .malformedToken), ("a.b", .malformedToken), ("e30.e30.e30.e30", .malformedToken),
            ("eyJhbGciOiJub25lIn0.e30.", .algNotAllowed), (String(repeating: "a", count: 3000), .tokenTooLarge),
            (deep, .tokenTooDeep), ("eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.AAAA", .malformedToken),
        ]
        for (token, code) in cases {
            let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [code], "\(token.prefix(40))")
            #expect(!verdict.valid && !verdict.verified)
        }
    }

    @Test("fail_fast checks the signature, then stops at the first failure and marks the rest not_run")
    func failFast() throws {
        let policy = try Self.fixture.policy("issuer: https://other.example\naudience: nobody", mode: "fail_fast")
        let verdict = try policy.evaluateNow(token: Self.fixture.token(), now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.codes == [.issuerMismatch])
        let statuses = Dictionary(uniqueKeysWithValues: (verdict.trace?.entries ?? []).map { ($0.rule, $0.status) })
        #expect(statuses["token.audience"] == .notRun)
        #expect(statuses["token.keys"] == .pass)
        #expect(verdict.verified)
    }

    @Test("signature first, in both modes: a forged token is signature_invalid alone, and no claim rule judges it or quotes the policy",
          arguments: ["fail_fast", "collect_all"])
    func signatureFirst(mode: String) throws {
        let policy = try Self.fixture.policy("issuer: https://expected.example\naudience: expected-audience\nclaims:\n  scope: {contains: orders:write}", mode: mode)
        let verdict = try policy.evaluateNow(token: Self.fixture.token(signer: Self.fixture.otherKey), now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.codes == [.signatureInvalid] && !verdict.verified)
        let text = String(decoding: verdict.json.serializedBytes(), as: UTF8.self)
        #expect(!text.contains("expected.example") && !text.contains("expected-audience") && !text.contains("orders:write"))
        let statuses = Dictionary(uniqueKeysWithValues: (verdict.trace?.entries ?? []).map { ($0.rule, $0.status) })
        #expect(statuses["token.issuer"] == .notRun && statuses["token.audience"] == .notRun && statuses["token.claims.scope"] == .notRun)
        // An algorithm the policy refuses leaves the signature unchecked: claims are not judged either.
        let refused = try policy.evaluateNow(token: Self.fixture.token(signer: JWK(secret: Array(repeating: 7, count: 32)), algorithm: .hs256), now: UnixTime(seconds: TokenFixture.now))
        #expect(!refused.codes.contains(.issuerMismatch) && !refused.codes.contains(.claimMismatch))
    }

    @Test("outputs are handed over only when the token is valid")
    func outputs() throws {
        let text = """
        policy: out
        token:
          algorithms: [ES256]
          keys: {jwks: \(Self.fixture.jwksJSON)}
        outputs:
          user: claims.sub
          kid: header.kid
        """
        let policy = try Policy.load(text: text, file: "out.yaml")
        let valid = try policy.evaluateNow(token: Self.fixture.token(), now: UnixTime(seconds: TokenFixture.now))
        #expect(valid.outputs == ["user": .string("user-1"), "kid": .string("k1")])
        let expired = try policy.evaluateNow(token: Self.fixture.token(), now: UnixTime(seconds: TokenFixture.now + 7200))
        #expect(expired.outputs.isEmpty)
    }
}
