@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Rules
import Testing

@Suite("Combinators and matchers")
struct CombinatorTests {
    static let fixture = TokenFixture.shared

    static func verdict(rules: String, claims: [String: JSONValue]) throws -> Verdict {
        try fixture.policy("", rules: rules).evaluateNow(token: fixture.token(claims), now: UnixTime(seconds: TokenFixture.now))
    }

    @Test("any_of passes on one branch and reports the most specific failure otherwise")
    func anyOf() throws {
        let rules = """
          - any_of:
              - token: {claims: {amr: {contains: mfa}}}
              - token: {claims: {acr: urn:loa:2}}
        """
        #expect(try Self.verdict(rules: rules, claims: ["amr": .array([.string("mfa")])]).valid)
        #expect(try Self.verdict(rules: rules, claims: ["acr": .string("urn:loa:2")]).valid)
        // amr present but wrong beats acr missing.
        let failed = try Self.verdict(rules: rules, claims: ["amr": .array([.string("pwd")])])
        #expect(failed.codes == [.claimMismatch])
        let withMessage = try Self.verdict(rules: rules + "\n    message: step-up required\n    id: step-up", claims: [:])
        #expect(withMessage.findings.map(\.message) == ["step-up required"])
        #expect(withMessage.findings.map(\.rule) == ["step-up"])
    }

    @Test("not, when/then and all_of")
    func others() throws {
        let not = "  - not: {token: {claims: {debug: {exists: true}}}}"
        #expect(try Self.verdict(rules: not, claims: [:]).valid)
        #expect(try Self.verdict(rules: not, claims: ["debug": .bool(true)]).codes == [.notSatisfied])
        let when = """
          - when: {token: {claims: {scope: {contains: admin}}}}
            then: {token: {claims: {amr: {contains: hwk}}}}
        """
        #expect(try Self.verdict(rules: when, claims: ["scope": .string("read")]).valid)
        #expect(try Self.verdict(rules: when, claims: ["scope": .string("admin"), "amr": .array([.string("hwk")])]).valid)
        #expect(try Self.verdict(rules: when, claims: ["scope": .string("admin")]).codes == [.claimMissing])
        let all = "  - all_of:\n      - token: {claims: {a: 1}}\n      - token: {claims: {b: 2}}"
        #expect(try Self.verdict(rules: all, claims: ["a": .number(.integer(1)), "b": .number(.integer(2))]).valid)
        #expect(try Self.verdict(rules: all, claims: ["a": .number(.integer(1)), "b": .number(.integer(3))]).codes == [.claimMismatch])
    }

    @Test("fragments in rules: inherit their section's settings: a keys fragment checks the policy's algorithms, a time fragment its leeway")
    func fragmentsInheritSettings() throws {
        let fixture = Self.fixture
        let keys = "  - any_of:\n      - token: {keys: {jwks: \(fixture.jwksJSON)}}\n"
        #expect(try fixture.policy("", rules: keys).evaluateNow(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).valid)
        let leeway = try fixture.policy("leeway: 10m", rules: "  - token: {not_before: required}\n")
        let early = try fixture.token(["nbf": .number(.integer(Int64(TokenFixture.now) + 300))])
        #expect(try leeway.evaluateNow(token: early, now: UnixTime(seconds: TokenFixture.now)).valid)
    }

    @Test("not and when never turn input that cannot be judged into a pass")
    func undecidedInput() throws {
        let not = "  - not: {token: {claims: {role: admin}}}"
        #expect(try Self.verdict(rules: not, claims: ["role": .string("user")]).valid)
        let wrongType = try Self.verdict(rules: "  - not: {token: {issuer: https://evil.example}}", claims: ["iss": .number(.integer(1))])
        #expect(!wrongType.valid && wrongType.codes == [.claimType])
        let when = "  - when: {token: {issuer: https://other.example}}\n    then: {token: {claims: {amr: {contains: hwk}}}}"
        #expect(try !Self.verdict(rules: when, claims: ["iss": .array([])]).valid)
    }

    struct MatcherCase: Sendable, CustomTestStringConvertible {
        let matcher: String
        let value: JSONValue?
        let code: FindingCode?
        var testDescription: String { "\(matcher) on \(value.map { String(decoding: $0.serializedBytes(), as: UTF8.self) } ?? "absent")" }
    }

    static let matcherCases: [MatcherCase] = [
        MatcherCase(matcher: "x", value: .string("x"), code: nil),
        MatcherCase(matcher: "'1'", value: .number(.integer(1)), code: .claimMismatch),
        MatcherCase(matcher: "{equals: true}", value: .string("true"), code: .claimMismatch),
        MatcherCase(matcher: "{not_equals: x}", value: .string("x"), code: .claimMismatch),
        MatcherCase(matcher: "{one_of: [a, b]}", value: .string("b"), code: nil),
        MatcherCase(matcher: "{one_of: [a, b]}", value: .string("c"), code: .claimMismatch),
        MatcherCase(matcher: "{not_one_of: [a, b]}", value: .string("a"), code: .claimMismatch),
        MatcherCase(matcher: "{contains: read}", value: .string("openid read"), code: nil),
        MatcherCase(matcher: "{contains: rea}", value: .string("openid read"), code: .claimMismatch),
        MatcherCase(matcher: "{contains_all: [a, b]}", value: .array([.string("a"), .string("b"), .string("c")]), code: nil),
        MatcherCase(matcher: "{contains_all: [a, d]}", value: .array([.string("a")]), code: .claimMismatch),
        MatcherCase(matcher: "{contains_any: [x, a]}", value: .array([.string("a")]), code: nil),
        MatcherCase(matcher: "{contains_any: [x, y]}", value: .string("a b"), code: .claimMismatch),
        MatcherCase(matcher: "{contains: a}", value: .number(.integer(1)), code: .claimType),
        MatcherCase(matcher: "{matches: '[a-z]+-[0-9]+'}", value: .string("user-42"), code: nil),
        MatcherCase(matcher: "{matches: '[a-z]+'}", value: .string("user-42"), code: .claimMismatch),
        MatcherCase(matcher: "{prefix: us}", value: .string("user"), code: nil),
        MatcherCase(matcher: "{suffix: er}", value: .string("user"), code: nil),
        MatcherCase(matcher: "{suffix: x}", value: .string("user"), code: .claimMismatch),
        MatcherCase(matcher: "{exists: true}", value: .null, code: nil),
        MatcherCase(matcher: "{exists: true}", value: nil, code: .claimMissing),
        MatcherCase(matcher: "{exists: false}", value: nil, code: nil),
        MatcherCase(matcher: "{exists: false}", value: .string("x"), code: .claimMismatch),
        MatcherCase(matcher: "{type: integer}", value: .number(.integer(3)), code: nil),
        MatcherCase(matcher: "{type: integer}", value: .number(.decimal(3.5)), code: .claimType),
        MatcherCase(matcher: "{type: object}", value: .object(JSONObject()), code: nil),
        MatcherCase(matcher: "{type: null}", value: .null, code: nil),
        MatcherCase(matcher: "{min: 2, max: 4}", value: .number(.integer(4)), code: nil),
        MatcherCase(matcher: "{min: 2, max: 4}", value: .number(.decimal(4.5)), code: .claimMismatch),
        MatcherCase(matcher: "{min_length: 2, max_length: 3}", value: .string("héé"), code: nil),
        MatcherCase(matcher: "{max_length: 1}", value: .array([.null, .null]), code: .claimMismatch),
        MatcherCase(matcher: "{min_length: 1}", value: .bool(true), code: .claimType),
    ]

    @Test("matchers", arguments: matcherCases)
    func matcher(_ row: MatcherCase) throws {
        let policy = try Self.fixture.policy("claims: {c: \(row.matcher)}")
        let verdict = try policy.evaluateNow(token: Self.fixture.token(row.value.map { ["c": $0] } ?? [:]), now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.codes == (row.code.map { [$0] } ?? []), "\(verdict.findings.map(\.message))")
    }
}
