import PolicyRuntime
import PolicyJOSE
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
