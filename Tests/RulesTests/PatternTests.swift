import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules
import Testing

/// `matches` runs on RE2: linear time whatever the pattern, and patterns that need backtracking
/// (backreferences, lookaround) are compile errors at their file:line:column.
@Suite("Patterns")
struct PatternTests {
    let fixture = TokenFixture.shared

    @Test("backreferences and lookaround are refused at compile time, located, with RE2's reason")
    func refusedAtCompileTime() {
        for (pattern, reason) in [("(a)\\\\1", "escape"), ("(?=a)a", "perl operator"), ("(?<!a)b", "(?<"), ("a{2000}{2000}", "repetition"), ("(", "missing )")] {
            let text = "policy: p\ntoken:\n  algorithms: [ES256]\n  keys: {jwks: \(fixture.jwksJSON)}\n  claims:\n    c: {matches: \"\(pattern)\"}\n"
            let error = #expect(throws: PolicyDiagnostics.self) { try Policy.load(text: text, file: "p.yaml", environment: [:]) }
            let found = error?.errors.first { $0.code == .invalidPattern }
            #expect(found?.location.line == 6 && found?.location.column == 18, "\(pattern): \(error?.items.map(\.description) ?? [])")
            #expect(found?.message.contains("is not an RE2 pattern") == true && found?.message.lowercased().contains(reason.lowercased()) == true,
                    "\(pattern): \(found?.message ?? "")")
        }
    }

    @Test("ten pathological patterns against 40 KB claims are judged, mismatches as expected; a forgery's claims are never matched")
    func pathologicalInput() throws {
        let patterns = ["(a+)+b", "(a|aa)*c", "(a*)*b", "(.*a){12}x", "(a|a)*b", "((a+)+)+d", "(a?){30}a{30}b", "([a-z]+\\\\s?)*!", "(\\\\w+)*\\\\$", "(a+)+$b"]
        let claims = patterns.indices.map { "    c\($0): {matches: \"\(patterns[$0])\"}" }.joined(separator: "\n")
        let policy = try fixture.policy("claims:\n" + claims.split(separator: "\n").map { String($0.dropFirst(2)) }.joined(separator: "\n"))
        var values: [String: JSONValue] = [:]
        for index in patterns.indices { values["c\(index)"] = .string(String(repeating: "a", count: 4000)) }
        let verdict = try policy.evaluateNow(token: fixture.token(values), now: UnixTime(seconds: TokenFixture.now))
        #expect(verdict.findings.filter { $0.code == .claimMismatch }.count == patterns.count, "\(verdict.findings.map(\.message))")
        let forged = try policy.evaluateNow(token: fixture.token(values, signer: fixture.otherKey), now: UnixTime(seconds: TokenFixture.now))
        #expect(forged.codes == [.signatureInvalid])
    }

    @Test("whole-value matching, UTF-8 text, and a pattern that matches")
    func semantics() throws {
        let policy = try fixture.policy("claims:\n  c: {matches: \"[a-z]+-[0-9]{2}\"}\n  d: {matches: \"caf\\u00e9|naïve\"}\n")
        #expect(try policy.evaluateNow(token: fixture.token(["c": .string("abc-42"), "d": .string("café")]), now: UnixTime(seconds: TokenFixture.now)).valid)
        #expect(try policy.evaluateNow(token: fixture.token(["c": .string("ABC-42"), "d": .string("naïve")]), now: UnixTime(seconds: TokenFixture.now)).codes == [.claimMismatch])
        #expect(try policy.evaluateNow(token: fixture.token(["c": .string("abc-42\n"), "d": .string("naïve")]), now: UnixTime(seconds: TokenFixture.now)).codes == [.claimMismatch])
    }
}
