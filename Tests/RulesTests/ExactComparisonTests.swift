import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// Untrusted text is compared by code points (RFC 7519 §7.3, RFC 3986 §6.2.1): a spelling that is
/// only canonically equivalent to the expected one (U+212A KELVIN SIGN for `K`, NFD for NFC)
/// never passes, wherever it appears.
@Suite("Exact comparisons")
struct ExactComparisonTests {
    let fixture = TokenFixture.shared
    static let kelvin = "\u{212A}"
    /// `café` in NFC and in NFD: equal as Swift strings, different code points.
    static let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")

    @Test("the premise: Swift's String == takes these for equal, the engine does not")
    func premise() {
        #expect("\(Self.kelvin)id" == "Kid" && Self.nfc == Self.nfd)
        #expect(!"\(Self.kelvin)id".isExactly("Kid") && !Self.nfc.isExactly(Self.nfd))
        #expect(JSONValue.string(Self.nfc) != .string(Self.nfd))
        #expect(!"\(Self.kelvin)ey".hasExactPrefix("K") && !"a\(Self.nfd)".hasExactSuffix(Self.nfc))
        #expect(JWSAlgorithm.exactly("ES256\(Self.kelvin)") == nil && JWSAlgorithm.exactly("ES256K") == .es256k)
    }

    @Test("iss, aud, azp, nonce and custom claims with a Kelvin sign or NFD are mismatches")
    func claims() throws {
        let policy = try fixture.policy("""
        issuer: https://Kelvin.example
        audience: client-K
        nonce: n-K
        claims:
          dept: \(Self.nfc)
          team: {prefix: K-, suffix: -\(Self.nfc)}
          scope: {contains: Kread}
        """)
        let good: [String: JSONValue] = ["iss": .string("https://Kelvin.example"), "aud": .string("client-K"), "nonce": .string("n-K"),
                                         "dept": .string(Self.nfc), "team": .string("K-x-\(Self.nfc)"), "scope": .string("a Kread b")]
        #expect(try policy.evaluateNow(token: fixture.token(good), now: UnixTime(seconds: TokenFixture.now)).valid)
        let cases: [(String, JSONValue, FindingCode)] = [
            ("iss", .string("https://\(Self.kelvin)elvin.example"), .issuerMismatch),
            ("aud", .string("client-\(Self.kelvin)"), .audienceMismatch),
            ("aud", .array([.string("client-\(Self.kelvin)")]), .audienceMismatch),
            ("nonce", .string("n-\(Self.kelvin)"), .nonceMismatch),
            ("dept", .string(Self.nfd), .claimMismatch),
            ("team", .string("\(Self.kelvin)-x-\(Self.nfc)"), .claimMismatch),
            ("team", .string("K-x-\(Self.nfd)"), .claimMismatch),
            ("scope", .string("a \(Self.kelvin)read b"), .claimMismatch),
        ]
        for (claim, value, code) in cases {
            var claims = good
            claims[claim] = value
            #expect(try policy.evaluateNow(token: fixture.token(claims), now: UnixTime(seconds: TokenFixture.now)).codes == [code], "\(claim): \(value)")
        }
    }

    @Test("member names are looked up exactly: a claim named with a Kelvin sign is not the claim the policy names")
    func memberNames() throws {
        let policy = try fixture.policy("claims:\n  Kind: admin\n")
        #expect(try policy.evaluateNow(token: fixture.token(["Kind": .string("admin")]), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(try policy.evaluateNow(token: fixture.token(["\(Self.kelvin)ind": .string("admin")]), now: UnixTime(seconds: TokenFixture.now)).codes == [.claimMissing])
        // Two names that are only canonically equivalent are two members, not a duplicate.
        let object = try JSONParser().parseObject(Array(#"{"Kid": 1, "\#(Self.kelvin)id": 2}"#.utf8), what: "a test object")
        #expect(object.count == 2 && object["Kid"] == .number(.integer(1)))
    }

    @Test("kid selects a key exactly: a Kelvin-sign kid is kid_unknown, not the key 'k1'")
    func kidSelection() throws {
        let policy = try Policy.load(text: """
        policy: kids
        token:
          algorithms: [ES256]
          keys: {jwks: {keys: [\(String(decoding: JSONValue.object(try {
              var key = try fixture.key.publicKey.publicJSON()
              key.set("kid", .string("Key-1"))
              return key
          }()).serializedBytes(), as: UTF8.self))]}}
        """, file: "kids.yaml", environment: [:])
        #expect(try policy.evaluateNow(token: fixture.token(header: ["kid": .string("Key-1")]), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(try policy.evaluateNow(token: fixture.token(header: ["kid": .string("\(Self.kelvin)ey-1")]), now: UnixTime(seconds: TokenFixture.now)).codes == [.kidUnknown])
    }

    @Test("the header's alg, typ and crit are read exactly")
    func header() throws {
        let policy = try fixture.policy("typ: JWT\ncrit: [Kext]\n")
        #expect(try policy.evaluateNow(token: fixture.token(header: ["crit": .array([.string("Kext")]), "Kext": .bool(true)]), now: UnixTime(seconds: TokenFixture.now)).valid)
        let crit = try policy.evaluateNow(token: fixture.token(header: ["crit": .array([.string("\(Self.kelvin)ext")]), "\(Self.kelvin)ext": .bool(true)]),
                                       now: UnixTime(seconds: TokenFixture.now))
        #expect(crit.codes == [.critUnsupported])
        #expect(try policy.evaluateNow(token: fixture.token(header: ["typ": .string("jw\u{1D42D}")]), now: UnixTime(seconds: TokenFixture.now)).codes == [.typNotAllowed])
    }

    @Test("a PKCE challenge, a callback state and an RFC 9207 issuer with a Kelvin sign do not match")
    func requestSecrets() throws {
        let pkce = try Policy.load(text: """
        policy: pkce
        inputs: {verifier: {}, challenge: {}}
        pkce: {methods: [S256, plain], challenge_method: S256, verifier: "${verifier}", challenge: "${challenge}"}
        """, file: "pkce.yaml", environment: [:])
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        func codes(_ challenge: String) throws -> [FindingCode] {
            try pkce.evaluateNow(inputs: ["verifier": .string(verifier), "challenge": .string(challenge)], now: UnixTime(seconds: TokenFixture.now)).codes
        }
        #expect(try codes(challenge).isEmpty)
        #expect(try codes(challenge.replacingOccurrences(of: "K", with: Self.kelvin)) == [.pkceMismatch])

        let callback = try Policy.load(text: """
        policy: callback
        inputs: {state: {}}
        callback: {redirect_uri: "https://app.example.com/cb", state: "${state}", issuer: https://idp.example.com/K}
        """, file: "callback.yaml", environment: [:])
        func callbackCodes(_ query: String) throws -> [FindingCode] {
            try callback.evaluateNow(subjects: [CallbackSubject(url: "https://app.example.com/cb?" + query)], inputs: ["state": .string("stateK")],
                                  now: UnixTime(seconds: TokenFixture.now)).codes
        }
        #expect(try callbackCodes("code=c&state=stateK&iss=https%3A%2F%2Fidp.example.com%2FK").isEmpty)
        #expect(try callbackCodes("code=c&state=state%E2%84%AA&iss=https%3A%2F%2Fidp.example.com%2FK") == [.stateMismatch])
        #expect(try callbackCodes("code=c&state=stateK&iss=https%3A%2F%2Fidp.example.com%2F%E2%84%AA") == [.issuerMismatch])
    }
}
