import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// `x5c: {trust: …}` with the chains of Keys/x5c (made by make-chains.py): a token's own
/// certificate chain, verified with OpenSSL to the anchor at the evaluation time.
@Suite("x5c trust anchors")
struct CertificateTrustTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Keys/x5c")
    let fixture = TokenFixture.shared

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The DER of a PEM certificate in standard base64, as `x5c` carries it.
    static func x5c(_ name: String) throws -> JSONValue {
        let pem = try String(contentsOfFile: path("\(name).pem"), encoding: .utf8)
        return .string(pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
    }

    static func key(_ name: String) throws -> JWK {
        try JWK(pem: String(contentsOfFile: path("\(name).key.pem"), encoding: .utf8))
    }

    /// A token signed by `leaf`'s key that carries `chain` in x5c.
    func token(_ leaf: String, chain: [String]? = nil, signer: JWK? = nil) throws -> String {
        let names = chain ?? [leaf, "intermediate-ca"]
        return try fixture.token(header: ["x5c": .array(names.map(Self.x5c))], signer: signer ?? Self.key(leaf))
    }

    func policy(_ keys: String) throws -> Policy {
        try Policy.load(text: """
        policy: x5c
        token:
          algorithms: [ES256]
          keys: \(keys)
        """, file: "x5c.yaml", environment: [:])
    }

    var trustOnly: String { "{x5c: {trust: \(Self.path("root-ca.pem"))}}" }

    @Test("a chain to the anchor verifies with its leaf key, at the evaluation time")
    func validChain() throws {
        let policy = try policy(trustOnly)
        let verdict = try policy.evaluateNow(token: token("leaf"), now: UnixTime(seconds: TokenFixture.now), trace: true)
        #expect(verdict.valid)
        #expect(verdict.trace?.key?.source == "x5c trust " + Self.path("root-ca.pem"))
        // In 2031 the same leaf has expired: validity is judged at the evaluation's time.
        #expect(try policy.evaluateNow(token: token("leaf"), now: 1_924_992_000).codes.contains(.certificateUntrusted))
    }

    @Test("an expired leaf, an untrusted root and a leaf that may not sign are certificate_untrusted")
    func refusedChains() throws {
        let policy = try policy(trustOnly)
        let cases: [(String, [String]?, String)] = [
            ("expired-leaf", nil, "certificate has expired"),
            ("other-leaf", ["other-leaf", "other-root-ca"], "self-signed certificate in certificate chain"),
            ("other-leaf", ["other-leaf"], "unable to get local issuer certificate"),
            ("encipher-leaf", nil, "without digitalSignature"),
            ("leaf", ["leaf"], "unable to get local issuer certificate"),
        ]
        for (leaf, chain, reason) in cases {
            let verdict = try policy.evaluateNow(token: token(leaf, chain: chain), now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.certificateUntrusted], "\(leaf)")
            #expect(verdict.findings.first?.message.contains(reason) == true, "\(leaf): \(verdict.findings.first?.message ?? "")")
        }
    }

    @Test("a good chain does not vouch for a signature by another key; garbage x5c is refused")
    func wrongSignerAndGarbage() throws {
        let policy = try policy(trustOnly)
        #expect(try policy.evaluateNow(token: token("leaf", signer: fixture.key), now: UnixTime(seconds: TokenFixture.now)).codes == [.signatureInvalid])
        // x5c that is not an array is a malformed header (RFC 7515 §4.1.6), before any key is chosen.
        #expect(try policy.evaluateNow(token: fixture.token(header: ["x5c": .string("MIIB")]), now: UnixTime(seconds: TokenFixture.now)).codes == [.malformedToken])
        for header: JSONValue in [.array([]), .array([.string("not base64!")]), .array([.number(.integer(1))])] {
            let verdict = try policy.evaluateNow(token: fixture.token(header: ["x5c": header]), now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.certificateUntrusted], "\(header)")
        }
        let tooLong = try Array(repeating: Self.x5c("intermediate-ca"), count: 11)
        #expect(try policy.evaluateNow(token: fixture.token(header: ["x5c": .array(tooLong)]), now: UnixTime(seconds: TokenFixture.now)).codes == [.certificateUntrusted])
    }

    @Test("with trust only, a token without x5c has no key; beside a source, such a token uses the source")
    func withAndWithoutSource() throws {
        #expect(try policy(trustOnly).evaluateNow(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).codes == [.keyUnavailable])
        let both = try policy("{jwks: \(fixture.jwksJSON), x5c: {trust: \(Self.path("root-ca.pem"))}}")
        #expect(try both.evaluateNow(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(try both.evaluateNow(token: token("leaf"), now: UnixTime(seconds: TokenFixture.now)).valid)
        // A chain that fails is never passed over for the source's keys.
        #expect(try both.evaluateNow(token: token("expired-leaf", signer: fixture.key), now: UnixTime(seconds: TokenFixture.now)).codes == [.certificateUntrusted])
    }

    @Test("without x5c trust the header is ignored, never followed")
    func notFollowedWithoutTrust() throws {
        let policy = try policy("{jwks: \(fixture.jwksJSON)}")
        #expect(try policy.evaluateNow(token: token("leaf"), now: UnixTime(seconds: TokenFixture.now)).codes == [.signatureInvalid])
    }

    /// A token signed by a leaf of the role chain (make-role-chain.py), carrying that leaf in x5c.
    func roleToken(_ leaf: String) throws -> String {
        try fixture.token(header: ["x5c": .array([Self.x5c(leaf)])], signer: Self.key(leaf))
    }

    static let idpRole = """
    {admission_roles: [1.2.276.0.76.4.260], policies: [1.2.276.0.76.4.203], subject: {O: gematik test, CN: [other, idp.example-ti.de]},
     san: {dns: [idp.example-ti.de]}, extended_key_usage: [clientAuth]}
    """

    @Test("x5c.leaf pins the signer to its role: the IDP's leaf passes, another leaf under the same anchor is certificate_untrusted")
    func leafMatcher() throws {
        let anyLeaf = try policy("{x5c: {trust: \(Self.path("role-ca.pem"))}}")
        #expect(try anyLeaf.evaluateNow(token: roleToken("card-leaf"), now: UnixTime(seconds: TokenFixture.now)).valid, "without leaf, any leaf under the anchor signs")
        let pinned = try policy("{x5c: {trust: \(Self.path("role-ca.pem")), leaf: \(Self.idpRole)}}")
        #expect(try pinned.evaluateNow(token: roleToken("idp-leaf"), now: UnixTime(seconds: TokenFixture.now)).valid)
        let card = try pinned.evaluateNow(token: roleToken("card-leaf"), now: UnixTime(seconds: TokenFixture.now))
        #expect(card.codes == [.certificateUntrusted])
        #expect(card.findings.first?.message.contains("does not match x5c.leaf") == true, "\(card.findings.map(\.message))")
    }

    @Test("each leaf constraint refuses on its own: subject, SAN, extended key usage, policy, role")
    func leafConstraints() throws {
        let cases: [(String, String)] = [
            ("{subject: {O: gematik}}", "subject O is 'gematik test'"),
            ("{subject: {OU: idp}}", "no OU"),
            ("{san: {dns: [idp.example.com]}}", "no dns"),
            ("{san: {uri: [https://idp.example-ti.de]}}", "no uri"),
            ("{extended_key_usage: [serverAuth]}", "1.3.6.1.5.5.7.3.1"),
            ("{policies: [1.2.276.0.76.4.203, 1.2.276.0.76.4.999]}", "1.2.276.0.76.4.999"),
            ("{admission_roles: [1.2.276.0.76.4.49]}", "include none of"),
        ]
        for (leaf, reason) in cases {
            let policy = try policy("{x5c: {trust: \(Self.path("role-ca.pem")), leaf: \(leaf)}}")
            let verdict = try policy.evaluateNow(token: roleToken("idp-leaf"), now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.certificateUntrusted] && verdict.findings.first?.message.contains(reason) == true,
                    "\(leaf): \(verdict.findings.map(\.message))")
        }
        // A leaf without an admission extension has no role.
        let rootChain = try policy("{x5c: {trust: \(Self.path("root-ca.pem")), leaf: {admission_roles: [1.2.276.0.76.4.260]}}}")
        #expect(try rootChain.evaluateNow(token: token("leaf"), now: UnixTime(seconds: TokenFixture.now)).findings.first?.message.contains("names no admission role") == true)
    }

    @Test("x5c.leaf compile errors: empty, an OID that is not one, an unknown SAN kind")
    func leafCompileErrors() throws {
        for (leaf, code) in [("{}", DiagnosticCode.missingKey), ("{admission_roles: [idpd]}", .invalidValue), ("{san: {ip: [127.0.0.1]}}", .unknownKey),
                             ("{extended_key_usage: [webAuth]}", .invalidValue), ("{subject: CN}", .wrongType)] {
            let error = #expect(throws: PolicyDiagnostics.self) { try policy("{x5c: {trust: \(Self.path("role-ca.pem")), leaf: \(leaf)}}") }
            #expect(error?.errors.contains { $0.code == code } == true, "\(leaf): \(error?.items.map(\.description) ?? [])")
        }
    }
}
