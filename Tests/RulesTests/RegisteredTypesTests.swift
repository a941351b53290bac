import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules
import Testing

/// Types the RFCs fix: registered header parameters of the wrong JSON type make a token
/// malformed (RFC 7515 §4.1), and a NumericDate is any JSON number within the stated range
/// (RFC 7519 §2), formatted without trapping however far away it is.
@Suite("Registered types")
struct RegisteredTypesTests {
    let fixture = TokenFixture.shared

    @Test("a kid, typ, crit, x5c or jwk header of the wrong JSON type is malformed_token, never 'no kid'")
    func headerTypes() throws {
        let policy = try fixture.policy("")
        let wrong: [String: JSONValue] = [
            "kid": .number(.integer(1)), "typ": .bool(true), "cty": .array([]), "crit": .string("exp"), "x5c": .object(JSONObject()),
            "jwk": .string("{}"), "jku": .number(.integer(0)), "x5t": .null, "b64": .string("false"),
        ]
        for (name, value) in wrong.sorted(by: { $0.key < $1.key }) {
            let verdict = try policy.evaluateNow(token: fixture.token(header: [name: value]), now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.malformedToken], "\(name): \(verdict.findings.map(\.message))")
            #expect(verdict.findings.first?.message.contains("header '\(name)' must be") == true, "\(name): \(verdict.findings.map(\.message))")
        }
        // A JWKS whose keys have kids: a numeric kid used to read as no kid and try every key.
        #expect(try policy.evaluateNow(token: fixture.token(header: ["kid": .number(.integer(1))]), now: UnixTime(seconds: TokenFixture.now)).verified == false)
    }

    @Test("NumericDate: 2^53, year 10000 and fractions are dates; beyond ±2^60 s or a non-number is claim_type")
    func numericDateRange() throws {
        let policy = try fixture.policy("")
        for exp: JSONValue in [.number(.integer(1 << 53)), .number(.integer(253_402_300_800)), .number(.decimal(1_795_255_200.5)),
                               .number(.integer(1 << 60))] {
            let verdict = try policy.evaluateNow(token: fixture.token(["exp": exp]), now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.valid, "\(exp): \(verdict.findings.map(\.message))")
        }
        for exp: JSONValue in [.number(.decimal(1e300)), .number(.bigInteger("123456789012345678901234567890")), .string("1795255200"), .null] {
            let verdict = try policy.evaluateNow(token: fixture.token(["exp": exp]), now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes == [.claimType], "\(exp): \(verdict.findings.map(\.message))")
        }
        let ancient = try policy.evaluateNow(token: fixture.token(["exp": .number(.integer(-(1 << 59)))]), now: UnixTime(seconds: TokenFixture.now))
        #expect(ancient.codes == [.tokenExpired])
        #expect(ancient.findings.first?.message.hasPrefix("expired at -") == true, "\(ancient.findings.map(\.message))")
    }

    @Test("each registered claim of each JSON type: claim_type exactly where RFC 7519's type is broken, and the one-pass check passes only tokens the claim-by-claim check passes")
    func oneCheckAgreesWithEach() throws {
        let policy = try fixture.policy("")
        let date: [(JSONValue, Bool)] = [
            (.number(.integer(1_795_255_200)), true), (.number(.integer(1 << 60)), true), (.number(.integer(1 << 62)), false),
            (.number(.integer(-5)), true), (.number(.decimal(1_795_255_200.5)), true), (.string("1795255200"), false), (.null, false),
            (.bool(true), false), (.array([]), false),
        ]
        let text: [(JSONValue, Bool)] = [(.string("x"), true), (.number(.integer(5)), false), (.array([.string("x")]), false),
                                         (.object(JSONObject()), false), (.null, false), (.bool(false), false)]
        let audience: [(JSONValue, Bool)] = [(.string("client-1"), true), (.array([.string("client-1"), .string("b")]), true),
                                             (.array([.string("client-1"), .number(.integer(5))]), false), (.number(.integer(5)), false),
                                             (.object(JSONObject()), false), (.array([]), true)]
        var cases: [(String, JSONValue, Bool)] = []
        for claim in ["exp", "nbf", "iat"] { cases += date.map { (claim, $0.0, $0.1) } }
        for claim in ["iss", "sub", "jti", "azp", "nonce"] { cases += text.map { (claim, $0.0, $0.1) } }
        cases += audience.map { ("aud", $0.0, $0.1) }
        var fastPasses = 0
        for (claim, value, wellTyped) in cases {
            let token = try fixture.token([claim: value])
            let verdict = try policy.evaluateNow(token: token, now: UnixTime(seconds: TokenFixture.now))
            #expect(verdict.codes.contains(.claimType) == !wellTyped, "\(claim) \(value): \(verdict.findings.map(\.message))")
            let claims = try JSONObjectView(claimsPayload: Array(try CompactJWS(token).payload), limits: .standard, what: "the payload")
            if claims.registeredClaimsHaveCommonTypes {
                fastPasses += 1
                #expect(wellTyped, "\(claim) \(value) passed the one-pass check")
            }
        }
        // Dates that are plain integers, and string claims, take the one-pass check.
        #expect(fastPasses >= 3 * 2 + 5 + 1, "\(fastPasses)")
        let plain = try JSONObjectView(claimsPayload: Array(try CompactJWS(fixture.token()).payload), limits: .standard, what: "the payload")
        #expect(plain.registeredClaimsHaveCommonTypes)
    }

    @Test("far dates are formatted as expanded ISO 8601 years, never trapping")
    func farDates() {
        #expect(UnixTime.iso8601(253_402_300_799) == "9999-12-31T23:59:59Z")
        #expect(UnixTime.iso8601(253_402_300_800) == "+10000-01-01T00:00:00Z")
        #expect(UnixTime.iso8601(-62_135_596_800) == "0001-01-01T00:00:00Z")
        #expect(UnixTime.iso8601(-62_167_219_201) == "-0001-12-31T23:59:59Z")
        #expect(UnixTime.iso8601(Double(1 << 53)) == "+285428751-11-12T07:36:32Z")
        for extreme in [Double(1 << 60), -Double(1 << 60), 1e300, -1e300, .infinity, .nan, .greatestFiniteMagnitude] {
            #expect(!UnixTime.iso8601(extreme).isEmpty)
        }
    }
}
