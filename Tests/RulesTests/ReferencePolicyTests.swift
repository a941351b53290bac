import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// The reference policies of Policies/, end to end: each bundled sample token is valid, and
/// the variations their checks exist for fail with their own codes. Variations are re-signed
/// with the bundled test keys, so only the claim or header under test differs.
@Suite("Reference policies")
struct ReferencePolicyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// 2026-11-21T09:30:00Z, when every sample is valid.
    static let now: Double = 1_795_253_400

    /// A reference policy with its sample token and the key that signed it.
    struct Sample {
        let policy: Policy
        let token: String
        let key: JWK
        let algorithm: JWSAlgorithm

        init(_ policy: String, sample: String, key: String, kid: String) throws {
            self.policy = try Policy.load(file: ReferencePolicyTests.root.appendingPathComponent("Policies/\(policy).yaml").path, environment: [:])
            token = try String(contentsOf: ReferencePolicyTests.root.appendingPathComponent("Policies/examples/\(sample)"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let pem = try String(contentsOf: ReferencePolicyTests.root.appendingPathComponent("Policies/keys/\(key)"), encoding: .utf8)
            self.key = try JWK(pem: pem, kid: kid)
            algorithm = try CompactJWS(token).algorithm
        }

        /// The sample re-signed with `claims` set (`.null` removes one) and `header` set.
        func variant(claims: [String: JSONValue] = [:], header: [String: JSONValue] = [:], signer: JWK? = nil, algorithm: JWSAlgorithm? = nil) throws -> String {
            let jws = try CompactJWS(token)
            return try CompactJWS.sign(payload: JSONValue.object(Self.applying(claims, to: jws.claims())).serializedBytes(),
                                       header: Self.applying(header, to: jws.header.object),
                                       algorithm: algorithm ?? self.algorithm, key: signer ?? key)
        }

        static func applying(_ changes: [String: JSONValue], to object: JSONObject) -> JSONObject {
            var result = JSONObject(members: object.members.filter { changes[$0.name] != .null })
            for name in changes.keys.sorted() where changes[name] != .null { result.set(name, changes[name]!) }
            return result
        }

        func codes(_ token: String, _ inputs: [String: JSONValue] = [:], now: UnixTime = UnixTime(seconds: ReferencePolicyTests.now)) throws -> [FindingCode] {
            try policy.evaluateNow(token: token, inputs: inputs, now: now).codes
        }
    }

    @Test("okta-id-token: the sample is valid; expiry, nonce, cid and extra audiences fail")
    func okta() throws {
        let sample = try Sample("okta-id-token", sample: "sample-id-token.jwt", key: "test-rs256.key.pem", kid: "test-rs256")
        let nonce: [String: JSONValue] = ["nonce": .string("n-0S6_WzA2Mj")]
        let verdict = try sample.policy.evaluateNow(token: sample.token, inputs: nonce, now: UnixTime(seconds: Self.now))
        #expect(verdict.valid && verdict.verified)
        #expect(verdict.outputs == ["user": .string("00u1a2b3c4d5e6f7g8"), "methods": .array([.string("pwd"), .string("mfa")])])
        #expect(try sample.codes(sample.token, nonce, now: UnixTime(seconds: Self.now + 5400)) == [.tokenExpired, .tokenTooOld])
        #expect(try sample.codes(sample.token, ["nonce": .string("n-other")]) == [.nonceMismatch])
        #expect(try sample.codes(sample.variant(claims: ["aud": .string("0oaOTHER")]), nonce) == [.audienceMismatch])
        #expect(try sample.codes(sample.variant(claims: ["aud": .array([.string("0oa1b2c3d4"), .string("evil")]), "azp": .string("0oa1b2c3d4")]), nonce)
                == [.audienceUntrusted])
        #expect(try sample.codes(sample.variant(header: ["kid": .null]), nonce) == [.kidMissing])
        #expect(try sample.codes(sample.variant(claims: ["amr": .string("pwd")]), nonce) == [.claimType])
    }

    @Test("rfc9068-access-token: typ at+jwt, audience, required claims and an optional scope")
    func accessToken() throws {
        let sample = try Sample("rfc9068-access-token", sample: "sample-access-token.jwt", key: "test-rs256.key.pem", kid: "test-rs256")
        let verdict = try sample.policy.evaluateNow(token: sample.token, now: UnixTime(seconds: Self.now))
        #expect(verdict.valid && verdict.verified)
        #expect(verdict.skipped == ["token.claims.scope"])
        #expect(try sample.policy.evaluateNow(token: sample.token, inputs: ["required_scope": .string("orders:read")], now: UnixTime(seconds: Self.now)).skipped.isEmpty)
        #expect(try sample.codes(sample.token, ["required_scope": .string("orders:write")]) == [.claimMismatch])
        #expect(try sample.codes(sample.token, ["resource": .string("https://other.example.com")]) == [.audienceMismatch])
        #expect(try sample.codes(sample.variant(header: ["typ": .string("JWT")])) == [.typNotAllowed])
        #expect(try sample.codes(sample.variant(header: ["typ": .string("application/AT+JWT")])) == [])
        #expect(try sample.codes(sample.variant(claims: ["jti": .null])) == [.claimMissing])
        #expect(try sample.codes(sample.variant(claims: ["client_id": .number(.integer(7))])) == [.claimType])
        #expect(try sample.codes(sample.variant(claims: ["iss": .string("https://auth.example.com")])) == [.issuerMismatch])
        #expect(try sample.codes(sample.variant(claims: ["iat": .number(.integer(1_795_253_500))])) == [.iatInFuture])
    }

    @Test("id-token-with-code: c_hash binds the token to the code; the key is chosen by a required kid")
    func idTokenWithCode() throws {
        let sample = try Sample("id-token-with-code", sample: "sample-id-token-with-code.jwt", key: "test-es256.key.pem", kid: "test-es256")
        let inputs: [String: JSONValue] = ["nonce": .string("n-0S6_WzA2Mj"), "auth_code": .string("SplxlOBeZQQYbYS6WxSbIA")]
        let verdict = try sample.policy.evaluateNow(token: sample.token, inputs: inputs, now: UnixTime(seconds: Self.now), trace: true)
        #expect(verdict.valid && verdict.verified)
        #expect(verdict.trace?.key == VerifiedKey(kid: "test-es256", source: "jwks_file " + Self.root.appendingPathComponent("Policies/keys/test-es256.jwks.json").path))
        var otherCode = inputs
        otherCode["auth_code"] = .string("SplxlOBeZQQYbYS6WxSbIB")
        #expect(try sample.codes(sample.token, otherCode) == [.cHashMismatch])
        #expect(try sample.codes(sample.variant(claims: ["c_hash": .null]), inputs) == [.claimMissing])
        #expect(try sample.codes(sample.variant(header: ["kid": .null]), inputs) == [.kidMissing])
        #expect(try sample.codes(sample.variant(header: ["kid": .string("rotated")]), inputs) == [.kidUnknown])
        #expect(try sample.codes(sample.variant(claims: ["iss": .string("https://accounts.example.com/")]), inputs) == [.issuerMismatch])
        #expect(throws: EvaluationError.self) { try sample.policy.evaluateNow(token: sample.token, inputs: ["nonce": .string("n-0S6_WzA2Mj")], now: UnixTime(seconds: Self.now)) }
    }

    @Test("gematik-discovery-document: BP256R1 only, its x5c signer under the trust anchor, its kid, its endpoints, a day's lifetime")
    func discoveryDocument() throws {
        let sample = try Sample("gematik-discovery-document", sample: "sample-discovery-document.jwt", key: "test-bp256r1.key.pem", kid: "puk_disc_sig")
        #expect(sample.algorithm == .bp256r1)
        let verdict = try sample.policy.evaluateNow(token: sample.token, now: UnixTime(seconds: Self.now), trace: true)
        #expect(verdict.valid && verdict.verified)
        #expect(verdict.trace?.key?.source == "x5c trust " + Self.root.appendingPathComponent("Policies/keys/test-idp-ca.pem").path)
        #expect(try sample.codes(sample.variant(header: ["x5c": .null])) == [.keyUnavailable])
        #expect(try sample.codes(sample.variant(header: ["x5c": .array([])])) == [.certificateUntrusted])
        #expect(try sample.codes(sample.variant(signer: JWK.generate(for: .bp256r1))) == [.signatureInvalid])
        #expect(verdict.outputs["token_endpoint"] == .string("https://idp.example-ti.de/token"))
        #expect(try sample.codes(sample.variant(header: ["kid": .string("puk_idp_sig")])) == [.headerMismatch])
        #expect(try sample.codes(sample.variant(claims: ["code_challenge_methods_supported": .array([.string("S256"), .string("plain")])])) == [.claimMismatch])
        #expect(try sample.codes(sample.variant(claims: ["token_endpoint": .string("https://evil.example/token")])) == [.claimMismatch])
        #expect(try sample.codes(sample.variant(claims: ["exp": .number(.integer(1_795_392_000))])) == [.lifetimeTooLong])
        #expect(try sample.codes(sample.token, now: UnixTime(seconds: Self.now + 86400)) == [.tokenExpired])
        let stranger = try JWK.generate(for: .bp256r1, kid: "puk_disc_sig")
        #expect(try sample.codes(sample.variant(signer: stranger)) == [.signatureInvalid])
        let p256 = try JWK.generate(for: .es256, kid: "puk_disc_sig")
        #expect(try sample.codes(sample.variant(signer: p256, algorithm: .es256)) == [.algNotAllowed])
    }

    @Test("gematik-signed-challenge: the eGK's signature under the card CA, the IDP's own challenge inside, traced step by step")
    func signedChallenge() throws {
        let policy = try Policy.load(file: Self.root.appendingPathComponent("Policies/gematik-signed-challenge.yaml").path, environment: [:])
        func sample(_ name: String) throws -> String {
            try String(contentsOf: Self.root.appendingPathComponent("Policies/examples/gematik/\(name)"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let verdict = try policy.evaluateNow(token: try sample("signed-challenge.jwe"), now: UnixTime(seconds: Self.now), trace: true)
        #expect(verdict.valid && verdict.verified)
        #expect(verdict.trace?.key?.source == "x5c trust " + Self.root.appendingPathComponent("Policies/keys/test-card-ca.pem").path)
        #expect(verdict.outputs["challenge"] == .string(try sample("challenge.jwt")))
        let inner = verdict.trace?.entries.filter { $0.rule.hasPrefix("token.embedded_tokens.njwt > ") } ?? []
        #expect(inner.map(\.rule).contains("token.embedded_tokens.njwt > token.issuer"))
        #expect(inner.allSatisfy { $0.status == .pass } && inner.count > 10)
        #expect(inner.first { $0.rule == "token.embedded_tokens.njwt > token.keys" }?.detail?
            .hasSuffix("from pem_file " + Self.root.appendingPathComponent("Policies/keys/test-idp-sig.pub.pem").path) == true)
        let late = try policy.evaluateNow(token: try sample("signed-challenge.jwe"), now: UnixTime(seconds: Self.now + 210), trace: true)
        #expect(late.codes == [.embeddedTokenInvalid] && late.findings[0].nested.map(\.code) == [.tokenExpired])
        #expect(late.trace?.entries.contains { $0.rule == "token.embedded_tokens.njwt > token.expires" && $0.status == .fail } == true)
        let forged = try policy.evaluateNow(token: try sample("signed-challenge.forged-challenge.jwe"), now: UnixTime(seconds: Self.now))
        #expect(forged.findings.first?.nested.map(\.code) == [.signatureInvalid])
        #expect(try policy.evaluateNow(token: try sample("signed-challenge.practice-card.jwe"), now: UnixTime(seconds: Self.now)).codes == [.certificateUntrusted])
    }

    @Test("oidc-callback: the example responses, a wrong state and a mix-up are told apart")
    func callback() throws {
        let policy = try Policy.load(file: Self.root.appendingPathComponent("Policies/oidc-callback.yaml").path, environment: [:])
        func verdict(_ example: String, state: String = "af0ifjsldkj") throws -> Verdict {
            let url = try String(contentsOf: Self.root.appendingPathComponent("Policies/examples/\(example)"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return try policy.evaluateNow(subjects: [CallbackSubject(url: url)], inputs: ["state": .string(state)], now: UnixTime(seconds: Self.now))
        }
        #expect(try verdict("callback-success.url").outputs["code"] == .string("SplxlOBeZQQYbYS6WxSbIA"))
        #expect(try verdict("callback-denied.url").codes == [.callbackError])
        #expect(try verdict("callback-success.url", state: "other").codes == [.stateMismatch])
    }

    @Test("pkce-s256: RFC 7636 Appendix B passes; plain and an undeclared method do not")
    func pkce() throws {
        let policy = try Policy.load(file: Self.root.appendingPathComponent("Policies/pkce-s256.yaml").path, environment: [:])
        var inputs: [String: JSONValue] = [
            "code_verifier": .string("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "code_challenge": .string("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
            "code_challenge_method": .string("S256"),
        ]
        #expect(try policy.evaluateNow(inputs: inputs, now: UnixTime(seconds: Self.now)).valid)
        inputs["code_challenge_method"] = nil
        #expect(try policy.evaluateNow(inputs: inputs, now: UnixTime(seconds: Self.now)).codes == [.pkceMethodNotAllowed])
        inputs["code_challenge_method"] = .string("plain")
        inputs["code_challenge"] = inputs["code_verifier"]
        #expect(try policy.evaluateNow(inputs: inputs, now: UnixTime(seconds: Self.now)).codes == [.pkceMethodNotAllowed])
    }

    static func request(_ example: String, edit: (inout JSONObject) -> Void = { _ in }) throws -> RequestSubject {
        var object = try JSONParser().parseObject(Array(Data(contentsOf: root.appendingPathComponent("Policies/examples/\(example)"))), what: "a request")
        edit(&object)
        return RequestSubject(object: object)
    }

    @Test("oidc-authorize-request: the example passes; implicit flow, short state, plain PKCE and a repeated parameter fail")
    func authorizeRequest() throws {
        let policy = try Policy.load(file: Self.root.appendingPathComponent("Policies/oidc-authorize-request.yaml").path, environment: [:])
        #expect(try policy.evaluateNow(subjects: [Self.request("oidc-authorize-request.request.json")], now: UnixTime(seconds: Self.now)).valid)
        func codes(_ from: String, _ to: String) throws -> [FindingCode] {
            let request = try Self.request("oidc-authorize-request.request.json") { object in
                object.set("url", .string(object["url"]!.stringValue!.replacingOccurrences(of: from, with: to)))
            }
            return try policy.evaluateNow(subjects: [request], now: UnixTime(seconds: Self.now)).codes
        }
        #expect(try codes("response_type=code", "response_type=id_token") == [.queryMismatch])
        #expect(try codes("scope=openid%20profile", "scope=profile") == [.queryMismatch])
        #expect(try codes("state=af0ifjsldkjQ7xV2mN9pLw", "state=short") == [.queryMismatch])
        #expect(try codes("code_challenge_method=S256", "code_challenge_method=plain") == [.queryMismatch])
        #expect(try codes("&nonce=", "&state=again&nonce=") == [.parameterRepeated])
    }

    @Test("gematik-idp-token-exchange: the form request and its verifier pass; another verifier or grant fails")
    func tokenExchange() throws {
        let policy = try Policy.load(file: Self.root.appendingPathComponent("Policies/gematik-idp-token-exchange.yaml").path, environment: [:])
        let inputs: [String: JSONValue] = ["code_verifier": .string("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
                                           "code_challenge": .string("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")]
        let request = try Self.request("gematik-token-request.request.json")
        #expect(try policy.evaluateNow(subjects: [request], inputs: inputs, now: UnixTime(seconds: Self.now)).valid)
        var otherVerifier = inputs
        otherVerifier["code_verifier"] = .string(String(repeating: "a", count: 43))
        #expect(try policy.evaluateNow(subjects: [request], inputs: otherVerifier, now: UnixTime(seconds: Self.now)).codes == [.bodyMismatch, .pkceMismatch])
        let implicit = try Self.request("gematik-token-request.request.json") { object in
            object.set("body", .string(object["body"]!.stringValue!.replacingOccurrences(of: "grant_type=authorization_code", with: "grant_type=password")))
        }
        #expect(try policy.evaluateNow(subjects: [implicit], inputs: inputs, now: UnixTime(seconds: Self.now)).codes == [.bodyMismatch])
    }

    @Test("authhub-authenticate: the plaintext example fails field by field; encrypted with the tenant key it passes")
    func authHub() throws {
        let policy = try Policy.load(file: Self.root.appendingPathComponent("Policies/authhub-authenticate.yaml").path, environment: [:])
        let inputs: [String: JSONValue] = ["server_nonce": .string("Qm9uam91cg")]
        let plain = try Self.request("authhub-authenticate.request.json")
        #expect(try policy.evaluateNow(subjects: [plain], inputs: inputs, now: UnixTime(seconds: Self.now)).codes == [.fieldNotEncrypted, .fieldNotEncrypted])
        let document = try JSONParser().parseObject(Array(Data(contentsOf: Self.root.appendingPathComponent("Policies/examples/authhub-authenticate.request.json"))), what: "a request")
        let encrypted = try RequestEncryptor(policy: policy).encrypt(request: document, inputs: inputs)
        let verdict = try policy.evaluateNow(subjects: [RequestSubject(object: encrypted)], inputs: inputs, now: UnixTime(seconds: Self.now))
        #expect(verdict.valid && verdict.verified)
    }
}
