@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyAuthoring
import Testing

/// Test files are read like policies: every problem located, fixtures only from below the file.
@Suite("Policy test files")
struct PolicyTestReaderTests {
    static func problems(_ text: String, extraFiles: [String: String] = [:]) throws -> [Diagnostic] {
        let directory = try TestDirectory()
        for (name, content) in extraFiles { try directory.write(name, content) }
        let file = try directory.write("p.test.yaml", text)
        do {
            _ = try PolicyTestReader().read(file: file)
            return []
        } catch {
            return error.sorted
        }
    }

    @Test("every problem of a file is reported, each at its line and column")
    func everyProblem() throws {
        let problems = try Self.problems("""
        policy: p
        now: yesterday
        cases:
          - name: first
            now: 0
            expect: {valid: maybe}
          - name: second
            now: 0
            tokn: {}
            expect: {valid: true}
          - {now: 0, expect: {valid: true, codes: [token_expired]}}
        """)
        let summary = problems.map { "\($0.location.line):\($0.location.column) \($0.code.rawValue)" }
        #expect(summary == ["2:6 invalid_value", "6:21 wrong_type", "9:5 unknown_key", "11:5 missing_key", "11:43 conflict"], "\(problems)")
        #expect(problems[0].message.contains("RFC 3339"))
    }

    @Test("dpop: needs a request, cannot bind a literal jwt, and names its key and scheme from the lists, each problem located")
    func dpop() throws {
        let problems = try Self.problems("""
        policy: p
        now: 2026-11-21T09:30:00Z
        token: {claims: {sub: a}}
        cases:
          - name: no request
            dpop: {}
            expect: {valid: true}
          - name: literal token
            request: {method: GET, url: /x}
            jwt: a.b.c
            dpop: {}
            expect: {valid: true}
          - name: bad key
            request: {method: GET, url: /x}
            dpop: {key: mine}
            expect: {valid: true}
          - name: bad scheme
            request: {method: GET, url: /x}
            dpop: {scheme: Basic}
            expect: {valid: true}
          - name: bad flag
            request: {method: GET, url: /x}
            dpop: {replay: yes please}
            expect: {valid: true}
        """)
        let summary = problems.map { "\($0.location.line):\($0.location.column) \($0.code.rawValue)" }
        #expect(summary == ["6:11 missing_key", "10:10 conflict", "15:17 invalid_value", "19:20 invalid_value", "23:20 wrong_type"], "\(problems)")
    }

    @Test("a misspelled key gets a did-you-mean hint, as in a policy file; a key far from any gets the allowed keys")
    func didYouMean() throws {
        let problems = try Self.problems("policy: p\ncase:\n  - {name: a, now: 2026-11-21T09:30:00Z, expect: {valid: true}}\n")
        let hints = problems.filter { $0.code == .unknownKey }.map { "\($0.location.line) \($0.hint ?? "")" }
        #expect(hints == ["2 did you mean 'cases'?"], "\(problems)")
        let cases = try Self.problems("""
        policy: p
        cases:
          - name: a
            now: 2026-11-21T09:30:00Z
            tokn: {claims: {sub: a}}
            expect: {valid: true}
          - name: b
            now: 2026-11-21T09:30:00Z
            token: {claim: {sub: a}}
            expect: {valid: true}
          - name: c
            now: 2026-11-21T09:30:00Z
            expect: {valid: true, cods: [token_expired]}
          - name: d
            now: 2026-11-21T09:30:00Z
            expect: {valid: true}
            frobnicate: 1
        """)
        let caseHints = cases.filter { $0.code == .unknownKey }.map { "\($0.location.line) \($0.hint ?? "")" }
        #expect(caseHints == ["5 did you mean 'token'?", "9 did you mean 'claims'?", "13 did you mean 'codes'?",
                              "17 allowed: name, now, inputs, token, jwt, request, dpop, callback, expect"], "\(cases)")
    }

    @Test("a case needs a time, an expectation and a unique name")
    func caseRequirements() throws {
        let problems = try Self.problems("""
        policy: p
        cases:
          - name: a
          - name: b
            now: 2026-11-21T09:30:00Z
            expect: {valid: false}
          - name: b
            now: 2026-11-21T09:30:00Z
            expect: {valid: false}
        """)
        #expect(problems.map(\.code) == [.missingKey, .missingKey, .conflict])
        #expect(problems[0].message.contains("'now'"))
        #expect(problems[1].message.contains("'expect'"))
        #expect(problems[2].message.contains("two cases are named 'b'"))
    }

    @Test("embedded tokens: a mapping of claim paths to tokens with the token's own keys")
    func embeddedProblems() throws {
        let problems = try Self.problems("""
        policy: p
        now: 0
        cases:
          - name: not a mapping
            token: {claims: {}, embedded: [njwt]}
            expect: {valid: false}
          - name: an unknown key
            token: {claims: {}, embedded: {njwt: {claim: {}}}}
            expect: {valid: false}
          - name: a bad flag deep inside
            token: {claims: {}, embedded: {njwt: {embedded: {inner: {corrupt_signature: 1}}}}}
            expect: {valid: false}
        """)
        #expect(problems.map(\.location.line) == [5, 8, 11], "\(problems.map(\.description))")
        #expect(problems[0].message.contains("'embedded' must map claim paths"))
        #expect(problems[1].message.contains("claim"))
        #expect(problems[2].message.contains("'corrupt_signature' must be true or false"))
    }

    @Test("a fixture outside the test file's directory is not read")
    func fixtureOutsideRoots() throws {
        let problems = try Self.problems("""
        policy: p
        now: 0
        cases:
          - name: escape
            jwt: "@../../../../etc/passwd"
            expect: {valid: false}
        """)
        #expect(problems.map(\.code) == [.fileOutsideRoots])
        #expect(!problems[0].message.contains("root:"))
    }

    @Test("the policy is named, never a path")
    func policyIsAName() throws {
        let problems = try Self.problems("policy: ../secrets/p\nnow: 0\ncases:\n  - {name: a, expect: {valid: true}}\n")
        #expect(problems.map(\.code) == [.invalidValue])
    }

    @Test("time claims are read as RFC 3339 or relative to now; quoted values stay strings")
    func timeClaims() throws {
        let directory = try TestDirectory()
        let file = try directory.write("p.test.yaml", """
        policy: p
        now: 2026-11-21T09:30:00Z
        token: {claims: {iss: a, exp: now+1h, nbf: 2026-11-21T09:00:00Z, iat: now-90s, auth_time: "now", sub: now}}
        cases:
          - name: base
            expect: {valid: true}
          - name: overridden
            token: {claims: {exp: null, sub: x}, header: {kid: k}}
            expect: {valid: true}
        """)
        let cases = try PolicyTestReader().read(file: file).cases
        guard case let .minted(first)? = cases[0].token, case let .minted(second)? = cases[1].token else {
            Issue.record("cases are not minted tokens")
            return
        }
        let claims = first.claims, changed = second.claims, header = second.header
        #expect(claims["exp"] == .number(.integer(1_795_257_000)))
        #expect(claims["nbf"] == .number(.integer(1_795_251_600)))
        #expect(claims["iat"] == .number(.integer(1_795_253_310)))
        #expect(claims["auth_time"] == .string("now"))
        #expect(claims["sub"] == .string("now"))
        #expect(changed["exp"] == nil && changed["sub"] == .string("x") && changed["iss"] == .string("a"))
        #expect(header["kid"] == .string("k"))
    }
}
