import Foundation
import HTTPTypes
import PolicyAuthoring
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyHTTP
import Rules
import Testing

/// A DPoP-bound request as forward auth and the middleware answer it (RFC 9449 §7.1): the `DPoP`
/// scheme accepted only by a policy that checks proofs, and each refusal answered with the
/// challenge that tells the client what to do.
@Suite("DPoP at the HTTP front")
struct DPoPFrontTests {
    static let now = UnixTime(seconds: 1_795_253_400)
    static let issuerKey = try! JWK.generate(for: .es256, kid: "as-1")
    static let client = DPoPProofMinter(key: try! JWK.generate(for: .es256), algorithm: .es256)

    /// A policy over `request`, with the issuer's access tokens when `token` is true.
    static func policy(_ request: String, token: Bool = true) throws -> Policy {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-front-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys = directory.appendingPathComponent("issuer.json")
        try Data(JSONValue.object(JSONObject(["keys": .array([.object(try issuerKey.publicKey.publicJSON())])])).serializedBytes()).write(to: keys)
        let tokenSection = token ? "token:\n  algorithms: [ES256]\n  keys: {jwks_file: \(keys.path)}\n  issuer: https://auth.example.com\n" : ""
        return try Policy.load(text: "policy: front\ninputs:\n  dpop_nonce: {required: false}\n" + tokenSection + "request:\n" + request,
                               file: directory.appendingPathComponent("front.yaml").path, environment: [:], fileRoots: FileRoots([directory.path]))
    }

    static func accessToken(boundTo jkt: String?) throws -> String {
        var claims = JSONObject(["iss": .string("https://auth.example.com"), "sub": .string("user-1"), "exp": .number(.integer(Int64(now.seconds) + 600))])
        if let jkt { claims.set("cnf", .object(JSONObject(["jkt": .string(jkt)]))) }
        return try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), header: JSONObject(["kid": .string("as-1")]), algorithm: .es256, key: issuerKey)
    }

    /// The forward-auth call nginx makes for `GET https://api.example.com/orders?x=1`.
    static func call(_ fields: [(String, String)]) throws -> IncomingRequest {
        var headers = HTTPFields()
        for (name, value) in [("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "api.example.com"), ("X-Forwarded-Uri", "/orders?x=1"),
                              ("X-Forwarded-Method", "GET")] + fields {
            headers.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        return try IncomingRequest.forwarded(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8181", path: "/v1/authz", headerFields: headers)).get()
    }

    static func answer(_ policy: Policy, _ fields: [(String, String)], inputs: [String: JSONValue] = [:]) async throws -> FrontAnswer {
        let front = FrontPolicy(policy)
        return front.answer(try await front.judge(try call(fields), inputs: inputs, signatureCache: nil, now: now))
    }

    static func proof(for token: String?, minter: DPoPProofMinter = client, nonce: String? = nil, claims: JSONObject = JSONObject()) throws -> String {
        try minter.proof(method: "GET", url: "https://api.example.com/orders?x=1", accessToken: token, issuedAt: now, nonce: nonce, claims: claims)
    }

    @Test("a bound token with its proof passes; the same proof again is refused as invalid_dpop_proof")
    func boundRequest() async throws {
        let policy = try Self.policy("  dpop: {}\n")
        let token = try Self.accessToken(boundTo: try Self.client.thumbprint())
        let fields = [("Authorization", "DPoP \(token)"), ("DPoP", try Self.proof(for: token))]
        #expect(try await Self.answer(policy, fields).status == .ok)
        let again = try await Self.answer(policy, fields)
        #expect(again.status == .unauthorized)
        #expect(again.headerFields[.wwwAuthenticate] == #"DPoP error="invalid_dpop_proof", error_description="dpop_proof_replayed", algs="ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA""#)
    }

    @Test("no credential is challenged with the DPoP scheme and its algorithms, and Bearer beside it while DPoP is optional")
    func challenges() async throws {
        let required = try Self.policy("  dpop: {algorithms: [ES256, EdDSA]}\n")
        #expect(try await Self.answer(required, []).headerFields[values: .wwwAuthenticate] == [#"DPoP algs="ES256 EdDSA""#])
        let optional = try Self.policy("  dpop: {algorithms: [ES256], required: false}\n")
        #expect(try await Self.answer(optional, []).headerFields[values: .wwwAuthenticate] == [#"DPoP algs="ES256""#, "Bearer"])
        // An unbound bearer token passes where DPoP is optional; a bound one sent as bearer is refused.
        #expect(try await Self.answer(optional, [("Authorization", "Bearer \(try Self.accessToken(boundTo: nil))")]).status == .ok)
        let downgraded = try await Self.answer(optional, [("Authorization", "Bearer \(try Self.accessToken(boundTo: try Self.client.thumbprint()))")])
        #expect(downgraded.status == .unauthorized)
        // The error belongs to the DPoP scheme the client must switch to.
        #expect(downgraded.headerFields[values: .wwwAuthenticate] == [#"DPoP error="invalid_dpop_proof", error_description="dpop_proof_missing", algs="ES256""#, "Bearer"])
    }

    @Test("the DPoP scheme at a policy without dpop is refused as an unsupported credential, never judged as a bearer token")
    func dpopSchemeWithoutRule() async throws {
        let policy = try Self.policy("  method: GET\n")
        let token = try Self.accessToken(boundTo: try Self.client.thumbprint())
        let answer = try await Self.answer(policy, [("Authorization", "DPoP \(token)"), ("DPoP", try Self.proof(for: token))])
        #expect(answer.status == .unauthorized && answer.headerFields[values: .wwwAuthenticate] == ["Bearer"])
    }

    @Test("a token bound to another key is invalid_token; a forged proof invalid_dpop_proof")
    func refusals() async throws {
        let policy = try Self.policy("  dpop: {algorithms: [ES256]}\n")
        let other = DPoPProofMinter(key: try JWK.generate(for: .es256), algorithm: .es256)
        let token = try Self.accessToken(boundTo: try other.thumbprint())
        let stolen = try await Self.answer(policy, [("Authorization", "DPoP \(token)"), ("DPoP", try Self.proof(for: token))])
        #expect(stolen.headerFields[.wwwAuthenticate] == #"DPoP error="invalid_token", error_description="dpop_binding_mismatch", algs="ES256""#)
        let wrongURL = try await Self.answer(policy, [("Authorization", "DPoP \(token)"),
                                                      ("DPoP", try Self.proof(for: token, minter: other, claims: JSONObject(["htu": .string("https://api.example.com/admin")])))])
        #expect(wrongURL.headerFields[.wwwAuthenticate] == #"DPoP error="invalid_dpop_proof", error_description="dpop_htu_mismatch", algs="ES256""#)
    }

    @Test("a proof without the server's nonce is answered use_dpop_nonce with the nonce to use; with it, it passes")
    func nonce() async throws {
        let policy = try Self.policy("  dpop: {algorithms: [ES256], nonce: '${dpop_nonce}'}\n", token: false)
        let inputs: [String: JSONValue] = ["dpop_nonce": .string("n-1")]
        let missing = try await Self.answer(policy, [("DPoP", try Self.proof(for: nil))], inputs: inputs)
        #expect(missing.status == .unauthorized)
        #expect(missing.headerFields[HTTPField.Name("DPoP-Nonce")!] == "n-1")
        #expect(missing.headerFields[.wwwAuthenticate] == #"DPoP error="use_dpop_nonce", error_description="use_dpop_nonce", algs="ES256""#)
        #expect(try await Self.answer(policy, [("DPoP", try Self.proof(for: nil, nonce: "n-1"))], inputs: inputs).status == .ok)
    }
}
