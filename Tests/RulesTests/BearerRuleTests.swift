import Foundation
import KeyServer
import Logging
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// `request.bearer`: the Authorization token checked with another policy, named or inline.
@Suite("Bearer rule")
struct BearerRuleTests {
    let fixture = TokenFixture.shared

    func policy(_ bearer: String, inputs: String = "") throws -> Policy {
        try Policy.load(text: """
        policy: api
        \(inputs)
        request:
          method: GET
          bearer: \(bearer)
        """, file: "api.yaml", environment: [:])
    }

    var inline: String { "{token: {algorithms: [ES256], keys: {jwks: \(fixture.jwksJSON)}, issuer: https://issuer.example}}" }

    func request(_ authorization: String?) -> RequestSubject {
        let headers = authorization.map { #"{"Authorization": "\#($0)"}"# } ?? "{}"
        return RequestSubject(json: Array(#"{"method": "GET", "url": "/orders", "headers": \#(headers)}"#.utf8))
    }

    @Test("a good bearer token makes the request valid and verified; a bad one nests the token's findings")
    func inlinePolicy() throws {
        let policy = try policy(inline)
        let good = try policy.evaluateNow(subjects: [request("Bearer " + fixture.token())], now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(good.valid && good.verified)
        #expect(good.trace?.key?.kid == "k1")
        let expired = try policy.evaluateNow(subjects: [request("bearer " + fixture.token(["exp": .number(.integer(1_795_250_000))]))], now: UnixTime(seconds: TokenFixture.now))
        #expect(expired.codes == [.bearerInvalid])
        #expect(expired.findings[0].nested.map(\.code) == [.tokenExpired])
        #expect(expired.findings[0].nested[0].rule == "token.expires")
        let json = expired.json.objectValue?["findings"]?.arrayValue?.first?.objectValue
        #expect(json?["findings"]?.arrayValue?.first?.objectValue?["code"] == .string("token_expired"))
        let forged = try policy.evaluateNow(subjects: [request("Bearer " + fixture.token(signer: fixture.otherKey))], now: UnixTime(seconds: TokenFixture.now))
        #expect(forged.codes == [.bearerInvalid] && !forged.verified)
    }

    @Test("the bearer token is checked through the caller's signature cache, or none when the caller passes none")
    func callersCache() throws {
        let policy = try policy(inline)
        let keys = try JWKSet(json: Array(fixture.jwksJSON.utf8)).keys
        let token = try fixture.token(["jti": .string("bearer-cache-\(UUID().uuidString)")])
        #expect(try policy.evaluateNow(subjects: [request("Bearer " + token)], now: UnixTime(seconds: TokenFixture.now), signatureCache: nil).valid)
        #expect(try !SignatureCache.shared.remembers(token, keys: keys))
        let own = SignatureCache()
        #expect(try policy.evaluateNow(subjects: [request("Bearer " + token)], now: UnixTime(seconds: TokenFixture.now), signatureCache: own).valid)
        #expect(try own.remembers(token, keys: keys) && !SignatureCache.shared.remembers(token, keys: keys))
        #expect(try policy.evaluateNow(subjects: [request("Bearer " + token)], now: UnixTime(seconds: TokenFixture.now), signatureCache: own).valid)
        #expect(own.statistics.hits == 1)
    }

    @Test("a bearer token with remote keys is decoded once per process and verified once, however often its request repeats")
    func decodedOnce() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let keyCache = JWKSCache(logger: .init(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let policy = try Policy.load(text: """
            policy: api
            request:
              method: GET
              bearer: {token: {algorithms: [ES256], keys: {jwks_uri: "\(server.url("/jwks").absoluteString)", allow_http: true}, issuer: https://issuer.example}}
            """, file: "api.yaml", environment: [:], keyCache: keyCache)
        let token = try fixture.token(["jti": .string("bearer-once-\(UUID().uuidString)")])
        let cache = SignatureCache()
        // The first request waits for the key set, which the token's kid chooses: its decoding
        // then serves the bearer rule's nested policy as well.
        for round in 1...5 {
            let verdict = try await policy.evaluate(subjects: [request("Bearer " + token)], now: UnixTime(seconds: TokenFixture.now), signatureCache: cache)
            #expect(verdict.valid && verdict.verified, "round \(round)")
        }
        #expect(cache.decodedTokenStatistics.misses == 1, "decoded \(cache.decodedTokenStatistics.misses) times")
        #expect(cache.decodedTokenStatistics.hits == 4)
        #expect(cache.statistics.misses == 1 && cache.statistics.hits == 4, "verified \(cache.statistics.misses) times")
        #expect(await server.requests("/jwks") == 1)
        // Without a cache the token is still split once a request, not once for its kid and again for its policy.
        let uncached = try policy.evaluateNow(subjects: [request("Bearer " + token)], now: UnixTime(seconds: TokenFixture.now), signatureCache: nil)
        #expect(uncached.valid)
    }

    @Test("no, two, or a non-Bearer Authorization header is bearer_missing")
    func missing() throws {
        let policy = try policy(inline)
        for header in [nil, "Basic YWxpY2U6cGFzcw==", "Bearer", "Bearer a b"] {
            #expect(try policy.evaluateNow(subjects: [request(header)], now: UnixTime(seconds: TokenFixture.now)).codes == [.bearerMissing], "\(header ?? "none")")
        }
        // A header with non-ASCII bytes is refused when the request is decoded, so it carries no token.
        #expect(try policy.evaluateNow(subjects: [request("Bearer ä")], now: UnixTime(seconds: TokenFixture.now)).codes == [.headerInvalid, .bearerMissing])
        let twice = RequestSubject(json: Array(#"{"method": "GET", "url": "/", "headers": {"Authorization": ["Bearer a", "Bearer b"]}}"#.utf8))
        #expect(try policy.evaluateNow(subjects: [twice], now: UnixTime(seconds: TokenFixture.now)).codes == [.bearerMissing])
    }

    @Test("a named policy is compiled beside the file and gets the inputs it declares")
    func namedPolicy() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = root.appendingPathComponent("Policies/examples-test-\(UUID().uuidString).yaml")
        try """
        policy: api
        inputs:
          required_scope: {required: false}
        request:
          bearer: {policy: rfc9068-access-token}
        """.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let policy = try Policy.load(file: file.path, environment: [:])
        let token = try String(contentsOf: root.appendingPathComponent("Policies/examples/sample-access-token.jwt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let request = request("Bearer " + token)
        #expect(try policy.evaluateNow(subjects: [request], now: UnixTime(seconds: TokenFixture.now)).valid)
        let scoped = try policy.evaluateNow(subjects: [request], inputs: ["required_scope": .string("orders:write")], now: UnixTime(seconds: TokenFixture.now))
        #expect(scoped.codes == [.bearerInvalid] && scoped.findings[0].nested.map(\.code) == [.claimMismatch])
        #expect(policy.keySources.map(\.description) == ["pem_file " + root.appendingPathComponent("Policies/keys/test-rs256.pub.pem").path])
    }

    @Test("compile errors: a missing policy, a policy that checks no token, both forms, a required input not declared, a cycle")
    func compileErrors() throws {
        let cases: [(String, DiagnosticCode)] = [
            ("request:\n  bearer: {policy: nowhere}\n", .baseMissing),
            ("request:\n  bearer: {policy: /etc/passwd}\n", .fileOutsideRoots),
            ("request:\n  bearer: {policy: ../../outside.yaml}\n", .fileOutsideRoots),
            ("request:\n  bearer: {}\n", .missingKey),
            ("request:\n  bearer: {policy: a, token: {}}\n", .conflict),
            ("request:\n  bearer: {token: {algorithms: [ES256]}}\n", .invalidValue),
            ("request:\n  bearer: {policy: pkce-s256}\n", .invalidValue),
            ("request:\n  bearer: {policy: okta-id-token}\n", .undeclaredInput),
        ]
        for (text, code) in cases {
            let found = CompileErrorTests.diagnosticsBesideBundledPolicies("policy: p\n" + text)
            #expect(found.contains { $0.code == code && $0.severity == .error }, "\(text): \(found.map(\.description))")
        }
        let cycle = try CompileErrorTests.loneFileProblems("policy: a\nrequest:\n  bearer: {policy: a}\n")
        #expect(cycle?.items.contains { $0.message.contains("nests policies more than 4 deep") || $0.message.contains("does not compile") } == true)
    }

    @Test("composition across sections: rules mix request and pkce fragments")
    func composition() throws {
        let policy = try Policy.load(text: """
        policy: mixed
        inputs:
          verifier: {}
          challenge: {}
        request:
          method: POST
        rules:
          - any_of:
              - request: {headers: {X-Client: mobile}}
              - pkce: {verifier: '${verifier}', challenge: '${challenge}'}
            message: mobile clients, or PKCE
        """, file: "mixed.yaml", environment: [:])
        let inputs: [String: JSONValue] = ["verifier": .string(PKCERuleTests.verifier), "challenge": .string("wrong")]
        let mobile = RequestSubject(json: Array(#"{"method": "POST", "url": "/", "headers": {"X-Client": "mobile"}}"#.utf8))
        let web = RequestSubject(json: Array(#"{"method": "POST", "url": "/", "headers": {"X-Client": "web"}}"#.utf8))
        #expect(try policy.evaluateNow(subjects: [mobile], inputs: inputs, now: 0).valid)
        let refused = try policy.evaluateNow(subjects: [web], inputs: inputs, now: 0)
        #expect(refused.findings.map(\.message) == ["mobile clients, or PKCE"])
        var good = inputs
        good["challenge"] = .string(PKCERuleTests.challenge)
        #expect(try policy.evaluateNow(subjects: [web], inputs: good, now: 0).valid)
    }
}
