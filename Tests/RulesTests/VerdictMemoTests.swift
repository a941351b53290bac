import Foundation
import PolicyEngine
@_spi(RuleAuthoring) @testable import PolicyRuntime
@_spi(JSONWriting) @_spi(RuleAuthoring) import PolicyJOSE
import Rules
import Testing

/// A batch reuses a repeated token's verdict for a record at another time only where judging it
/// again would write the same line: each judged with and without remembered verdicts, the same
/// bytes, and the memo used where it may be and nowhere else.
@Suite("Verdicts of repeated tokens")
struct VerdictMemoTests {
    let fixture = TokenFixture.shared
    static let now = TokenFixture.now

    /// The verdict lines of `records` (a token, the record's time, its inputs) judged in order on
    /// one thread, and how many verdicts were reused; `memo: false` keeps none, and shares no
    /// judgement between lines either (each is judged as if alone).
    func judge(_ policy: Policy, _ records: [(token: String, time: Double, inputs: [String: JSONValue])], memo: Bool,
               detectReplay: Bool = false) -> (lines: [String], verdicts: [BatchVerdict], reused: Int?) {
        var evaluator = BatchEvaluator(policy: policy, jobs: 1, signatureCache: SignatureCache(), verdictMemory: memo ? 1 << 20 : nil)
        evaluator.detectReplay = detectReplay
        var lines: [String] = [], verdicts: [BatchVerdict] = []
        var sharing = JudgementSharing(policy: evaluator.policy)
        for (index, record) in records.enumerated() {
            let batchRecord = BatchRecord(line: index + 1, input: nil,
                                          content: .token(TokenText(record.token), time: UnixTime(seconds: record.time), inputs: record.inputs))
            if !memo { sharing = JudgementSharing(policy: evaluator.policy) }
            guard let verdict = evaluator.evaluateNow(batchRecord, sharing: &sharing) else {
                Issue.record("record \(index + 1) waited for keys")
                continue
            }
            lines.append(Self.line(of: verdict))
            verdicts.append(verdict)
        }
        return (lines, verdicts, evaluator.reusedVerdicts)
    }

    /// The JSON line `verdict` writes, as `policy-run batch` writes it.
    static func line(of verdict: BatchVerdict) -> String {
        var writer = JSONWriter()
        verdict.writeJSONLine(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `tokens` each presented at every time of `times`, in an order that goes back and forth
    /// across the boundaries.
    static func records(_ tokens: [String], at times: [Double]) -> [(token: String, time: Double, inputs: [String: JSONValue])] {
        var records: [(token: String, time: Double, inputs: [String: JSONValue])] = []
        // Ascending, descending, then strided: each boundary is crossed both ways.
        let orders = [Array(times.indices), Array(times.indices.reversed()), times.indices.map { ($0 * 7) % times.count }]
        for order in orders {
            for index in order {
                for token in tokens { records.append((token, times[index], [:])) }
            }
        }
        return records
    }

    @Test("across exp, nbf and iat boundaries, with whole and fractional times, the lines are those judged afresh, and most repeats reuse a verdict",
          arguments: ["collect_all", "fail_fast"])
    func sameLinesAcrossTimeBoundaries(mode: String) throws {
        let policy = try fixture.policy("""
        issuer: https://issuer.example
        audience: client-1
        leeway: 30
        not_before: required
        issued_at: {required: true, max_age: 1h}
        """, mode: mode)
        let (iat, nbf, exp) = (Self.now - 1800, Self.now - 600, Self.now + 3000)
        let tokens = [
            try fixture.token(["iat": .number(.integer(Int64(iat))), "nbf": .number(.integer(Int64(nbf))), "exp": .number(.integer(Int64(exp)))]),
            try fixture.token(["iat": .number(.decimal(iat + 0.25)), "nbf": .number(.decimal(nbf + 0.5)), "exp": .number(.decimal(exp + 0.75))]),
            try fixture.token(["aud": .string("client-2"), "nbf": .number(.integer(Int64(nbf))), "exp": .number(.integer(Int64(exp)))]),
            try fixture.token(["nbf": .number(.integer(Int64(nbf)))], signer: fixture.otherKey),
        ]
        // Every boundary the rules compare with: nbf − leeway, exp + leeway, iat + max_age + leeway.
        var times: [Double] = []
        for boundary in [nbf - 30, nbf + 0.5 - 30, exp + 30, exp + 0.75 + 30, iat + 3600 + 30, iat + 0.25 + 3600 + 30] {
            times += [boundary - 1, boundary - 0.5, boundary - 0.001, boundary, boundary + 0.001, boundary + 0.5, boundary + 1]
        }
        times += [Self.now, Self.now + 1, Self.now + 0.5, exp + 10_000]
        let records = Self.records(tokens, at: times)
        let fresh = judge(policy, records, memo: false)
        let remembered = judge(policy, records, memo: true)
        #expect(fresh.reused == nil)
        for (index, (line, expected)) in zip(remembered.lines, fresh.lines).enumerated() where line != expected {
            Issue.record("record \(index + 1), time \(records[index].time): \(line) instead of \(expected)")
        }
        #expect(remembered.lines.count == records.count)
        // Valid verdicts hold between boundaries, and the invalid ones that quote no time do too.
        #expect((remembered.reused ?? 0) > records.count / 3, "\(remembered.reused ?? 0) of \(records.count) reused")
        // The boundaries as the rules define them: exp + leeway is expired, nbf − leeway valid,
        // iat + max_age + leeway not too old yet.
        func codes(_ time: Double) -> [String] {
            let index = records.firstIndex { $0.token == tokens[0] && $0.time == time }!
            return remembered.verdicts[index].verdict.findings.map(\.code.rawValue)
        }
        #expect(!codes(exp + 30 - 0.001).contains("token_expired") && codes(exp + 30).contains("token_expired"))
        #expect(!codes(nbf - 30).contains("token_not_yet_valid") && codes(nbf - 30 - 0.001).contains("token_not_yet_valid"))
        #expect(codes(iat + 3600 + 30) == [] && codes(iat + 3600 + 30 + 0.001) == ["token_too_old"])
    }

    @Test("a verdict that quotes the time is reused inside its window, each line quoting its own record's time; past the year 9999 it is judged again")
    func quotedTimeRequoted() throws {
        let policy = try fixture.policy("""
        not_before: required
        issued_at: {required: true, max_age: 1h}
        """)
        let tokens = [
            try fixture.token(["exp": .number(.integer(Int64(Self.now - 600))), "nbf": .number(.integer(Int64(Self.now - 7200)))]),
            try fixture.token(["nbf": .number(.integer(Int64(Self.now + 600)))]),
            try fixture.token(["iat": .number(.integer(Int64(Self.now - 7200))), "nbf": .number(.integer(Int64(Self.now - 7200)))]),
        ]
        let unquotable = UnixTime.twentyByteISO8601Times.until + 5
        let times = [Self.now, Self.now + 1, Self.now + 1.5, Self.now + 2, Self.now + 59, unquotable]
        let records = times.flatMap { time in tokens.map { (token: $0, time: time, inputs: [String: JSONValue]()) } }
        let fresh = judge(policy, records, memo: false)
        let remembered = judge(policy, records, memo: true)
        #expect(remembered.lines == fresh.lines)
        // Each token's first sighting judged; its four later ones in the year 2026 reused; the
        // sightings in the year 10000 judged (a time no longer quoted in twenty bytes, or past exp).
        #expect(remembered.reused == 12)
        let codes = remembered.verdicts.prefix(3).map { $0.verdict.findings.map(\.code) }
        #expect(codes == [[.tokenExpired], [.tokenNotYetValid], [.tokenTooOld]])
        let lastIn2026 = remembered.verdicts[12..<15]
        #expect(lastIn2026.allSatisfy { $0.verdict.findings.count == 1 && $0.verdict.findings[0].message.contains("2026-11-21T09:30:59Z") })
        #expect(remembered.verdicts[15].verdict.findings[0].message.contains("evaluated at +10000-01-01T00:00:05Z"))
    }

    @Test("a message quotes the time in place once; quoted twice, or written into a string, the time ties the verdict to its instant")
    func quotedTimeInMessages() {
        let context = EvaluationContext(now: UnixTime(seconds: 1_795_253_401.5), inputs: [:], token: nil)
        let message: FindingMessage = "expired; evaluated at \(context.quotedNow) with 0s leeway"
        #expect(message.text == "expired; evaluated at 2026-11-21T09:30:01Z with 0s leeway")
        #expect(message.timeQuote == 22..<42)
        #expect(context.timeWindow == .always)
        let finding = Finding(rule: "token.expires", code: .tokenExpired, message: message.text, timeQuote: message.timeQuote, at: "p.yaml:1:1")
        let verdict = Verdict(policy: "p", valid: false, verified: true, findings: [finding], skipped: [], outputs: [:], trace: nil)
        #expect(verdict.quotesTime)
        #expect(verdict.requoted(at: UnixTime(seconds: 1_795_339_862)).findings[0].message == "expired; evaluated at 2026-11-22T09:31:02Z with 0s leeway")
        #expect(verdict.requoted(at: UnixTime(seconds: 1_795_339_862)).findings[0] != finding)
        let twice: FindingMessage = "at \(context.quotedNow), again at \(context.quotedNow)"
        #expect(twice.text == "at 2026-11-21T09:30:01Z, again at 2026-11-21T09:30:01Z" && twice.timeQuote == 3..<23)
        #expect(context.timeWindow == TimeWindow(from: 1_795_253_401.5, until: 1_795_253_401.5.nextUp))
        let elsewhere = EvaluationContext(now: UnixTime(seconds: 100), inputs: [:], token: nil)
        #expect("\(elsewhere.quotedNow)" == "1970-01-01T00:01:40Z")
        #expect(elsewhere.timeWindow == TimeWindow(from: 100, until: 100.nextUp))
    }

    @Test("a token's one-time value is recorded at every presentation: its second and later uses are replays, never a remembered valid verdict")
    func oneTimeValuesAreNotRemembered() throws {
        let policy = try fixture.policy("once: {value: claims.jti}")
        let token = try fixture.token(["jti": .string("j-1")])
        let records = (0..<5).map { (token: token, time: Self.now + Double($0), inputs: [String: JSONValue]()) }
        let remembered = judge(policy, records, memo: true)
        #expect(remembered.lines == judge(policy, records, memo: false).lines)
        #expect(remembered.verdicts.map(\.verdict.valid) == [true, false, false, false, false])
        #expect(remembered.verdicts.dropFirst().allSatisfy { $0.verdict.findings.map(\.code.rawValue) == ["value_replayed"] })
        #expect(remembered.reused == 0)
    }

    @Test("records with inputs of their own are judged with them, not answered by another record's verdict")
    func recordInputsAreJudged() throws {
        let policy = try fixture.policy("nonce: ${nonce}", inputs: "  nonce: {}\n")
        let token = try fixture.token()
        let records = (0..<6).map { (token: token, time: Self.now, inputs: ["nonce": JSONValue.string($0 % 2 == 0 ? "n-123" : "other")]) }
        let remembered = judge(policy, records, memo: true)
        #expect(remembered.verdicts.map(\.verdict.valid) == [true, false, true, false, true, false])
        #expect(remembered.lines == judge(policy, records, memo: false).lines)
        #expect(remembered.reused == 0)
    }

    @Test("a reused verdict line carries its own record's line number and replay key")
    func reusedLinesAreTheirRecords() throws {
        let policy = try fixture.policy("")
        let token = try fixture.token()
        // The token expires at now + 1800: the last record is after it, and no replay.
        let records = [0.0, 60, 120, 1900].map { (token: token, time: Self.now + $0, inputs: [String: JSONValue]()) }
        let remembered = judge(policy, records, memo: true, detectReplay: true)
        // Kept from the first record: the second and third reuse it, the expired fourth is judged.
        #expect(remembered.reused == 2)
        #expect(remembered.verdicts.map(\.line) == [1, 2, 3, 4])
        var marked = remembered.verdicts, freshMarked = judge(policy, records, memo: false, detectReplay: true).verdicts
        var detector = BatchReplayDetector(), freshDetector = BatchReplayDetector()
        #expect(detector.mark(&marked).map(\.again.line) == [2, 3])
        #expect(freshDetector.mark(&freshMarked).map(\.again.line) == [2, 3])
        func text(_ verdicts: [BatchVerdict]) -> [String] {
            verdicts.map(Self.line(of:))
        }
        #expect(text(marked) == text(freshMarked))
    }

    @Test("lines in a row share an issuer's text and a judgement only where they say the same: issuers, kids and outcomes changing line by line")
    func sharedJudgementsFollowEachLine() throws {
        let policy = try fixture.policy("")
        let escapedIssuer = try CompactJWS.sign(payload: Array(#"{"iss":"https:\/\/issuer.example","aud":"client-1","exp":1795255200,"jti":"e"}"#.utf8),
                                                header: JSONObject(["typ": .string("JWT"), "kid": .string("k1")]), algorithm: .es256, key: fixture.key)
        let tokens = [
            try fixture.token(["jti": .string("1")]),
            try fixture.token(["jti": .string("2")]),
            try fixture.token(["jti": .string("3"), "iss": .string("https://other.example")]),
            try fixture.token(["jti": .string("4")], remove: ["iss"]),
            try fixture.token(["jti": .string("5"), "iss": .number(.integer(5))]),
            escapedIssuer,
            try fixture.token(["jti": .string("7")], header: ["kid": .string("k2")]),
            try fixture.token(["jti": .string("8")]),
            try fixture.token(["jti": .string("9"), "exp": .number(.integer(1_795_250_000))]),
            try fixture.token(["jti": .string("10")]),
            try fixture.token(["jti": .string("11")]),
        ]
        let records = tokens.map { (token: $0, time: Self.now, inputs: [String: JSONValue]()) }
        let shared = judge(policy, records, memo: true).lines
        #expect(shared == judge(policy, records, memo: false).lines)
        let members = try shared.map { line in try JSONParser().parseObject(Array(line.utf8), what: "a verdict line") }
        #expect(members.map { $0["iss"]?.stringValue } == ["https://issuer.example", "https://issuer.example", "https://other.example", nil, nil,
                                                           "https://issuer.example", "https://issuer.example", "https://issuer.example",
                                                           "https://issuer.example", "https://issuer.example", "https://issuer.example"])
        #expect(members.map { $0["kid"]?.stringValue } == ["k1", "k1", "k1", "k1", "k1", "k1", "k2", "k1", "k1", "k1", "k1"])
        #expect(members.map { $0["valid"]?.boolValue } == [true, true, true, true, false, true, false, true, false, true, true])
    }

    @Test("tokens that fail alike share one rendered judgement, a failure that says anything else makes its own, and every line is the one judged alone")
    func invalidJudgementsSharedByWhatTheySay() throws {
        let policy = try fixture.policy("issuer: https://issuer.example\naudience: client-1")
        func token(_ jti: String, _ changes: [String: JSONValue] = [:], header: [String: JSONValue] = [:], signer: JWK? = nil) throws -> String {
            var changes = changes
            changes["jti"] = .string(jti)
            return try fixture.token(changes, header: header, signer: signer)
        }
        let audience: [String: JSONValue] = ["aud": .string("client-9")]
        let expired: [String: JSONValue] = ["exp": .number(.integer(1_795_250_000))]
        let quoted: [String: JSONValue] = ["iss": .string("q\"uote\\ é\u{01}")]
        let tokens: [(name: String, token: String)] = [
            ("aud 1", try token("a1", audience)), ("valid 1", try token("v1")), ("expired 1", try token("e1", expired)),
            ("aud 2", try token("a2", audience)), ("quoted 1", try token("q1", quoted)), ("expired 2", try token("e2", expired)),
            ("aud 3", try token("a3", audience)), ("expired earlier", try token("e3", ["exp": .number(.integer(1_795_249_000))])),
            ("quoted 2", try token("q2", quoted)), ("other aud", try token("o1", ["aud": .string("client-8")])),
            ("forged 1", try token("f1", signer: fixture.otherKey)), ("forged 2", try token("f2", signer: fixture.otherKey)),
            ("kid k2", try token("k1", header: ["kid": .string("k2")])), ("valid 2", try token("v2")),
            // Five kinds since "aud 3": the first of them no longer kept, and judged anew.
            ("expired 3", try token("e4", expired)), ("aud 4", try token("a4", audience)),
        ]
        let records = tokens.map { (token: $0.token, time: Self.now, inputs: [String: JSONValue]()) }
        let (lines, verdicts, _) = judge(policy, records, memo: true)
        #expect(lines == judge(policy, records, memo: false).lines)
        let position = Dictionary(uniqueKeysWithValues: tokens.enumerated().map { ($0.element.name, $0.offset) })
        func shares(_ one: String, _ other: String) -> Bool {
            verdicts[position[one]!].verdict.isIdentical(to: verdicts[position[other]!].verdict)
        }
        #expect(shares("aud 2", "aud 1") && shares("aud 3", "aud 1") && verdicts[position["aud 2"]!].isRendered)
        #expect(shares("expired 2", "expired 1") && shares("quoted 2", "quoted 1") && shares("forged 2", "forged 1"))
        #expect(!verdicts[position["aud 1"]!].isRendered, "a judgement no other line shared is not rendered")
        #expect(!shares("expired earlier", "expired 1") && !shares("other aud", "aud 1") && !shares("kid k2", "forged 1"))
        #expect(!shares("expired 3", "expired 1") && !shares("aud 4", "aud 1"), "at most four kinds are kept: the oldest made way")
        #expect(verdicts.filter { !$0.verdict.valid }.count == 14)
    }

    @Test("a verdict writes the same members as another only when each member it writes is equal; a trace or outputs make it its own")
    func sameMembers() {
        func verdict(_ message: String = "m", at: String = "p.yaml:3:5", valid: Bool = false, outputs: [String: JSONValue] = [:], trace: Trace? = nil) -> Verdict {
            Verdict(policy: "p", valid: valid, verified: true, findings: valid ? [] : [Finding(rule: "token.audience", code: .audienceMismatch, message: message, at: at)],
                    skipped: [], outputs: outputs, trace: trace)
        }
        let one = verdict()
        #expect(one.writesSameMembers(as: one) && one.writesSameMembers(as: verdict()))
        #expect(!one.writesSameMembers(as: verdict("n")) && !one.writesSameMembers(as: verdict(at: "p.yaml:4:5")))
        #expect(!verdict(valid: true).writesSameMembers(as: verdict(valid: true, outputs: ["sub": .string("u")])))
        let traced = verdict(trace: Trace(clock: .init(now: UnixTime(seconds: 0), source: "caller")))
        #expect(!traced.writesSameMembers(as: verdict(trace: traced.trace)) && !one.writesSameMembers(as: traced))
    }

    @Test("a batch with a memo leaves the decoded-token cache alone; without one, or for a record with inputs of its own, it uses it")
    func decodedTokenCacheOnlyWithoutMemo() throws {
        let policy = try fixture.policy("nonce: ${nonce}", inputs: "  nonce: {}\n")
        let token = try fixture.token(["nonce": .string("n-123")])
        for (memo, inputs) in [(true, [String: JSONValue]()), (false, [:]), (true, ["nonce": JSONValue.string("n-123")])] {
            let cache = SignatureCache()
            let evaluator = BatchEvaluator(policy: policy, inputs: ["nonce": .string("n-123")], jobs: 1, signatureCache: cache,
                                           verdictMemory: memo ? 1 << 20 : nil)
            var sharing = JudgementSharing(policy: evaluator.policy)
            for line in 1...3 {
                let record = BatchRecord(line: line, input: nil, content: .token(TokenText(token), time: UnixTime(seconds: Self.now + Double(line)), inputs: inputs))
                let verdict = try #require(evaluator.evaluateNow(record, sharing: &sharing))
                #expect(verdict.verdict.valid)
            }
            let looked = cache.decodedTokenStatistics.hits + cache.decodedTokenStatistics.misses
            if memo, inputs.isEmpty {
                #expect(looked == 0 && evaluator.reusedVerdicts == 2, "memo: \(cache.decodedTokenStatistics)")
            } else {
                #expect(looked == 3 && cache.decodedTokenStatistics.hits >= 1, "memo \(memo), inputs \(inputs): \(cache.decodedTokenStatistics)")
            }
        }
    }

    @Test("a batch with a memo verifies a token's first sighting without the signature cache, and keeps its check from the next one the memo cannot answer")
    func signatureCacheFromSecondSighting() throws {
        let policy = try fixture.policy("leeway: 0")
        // Not yet valid at its first sighting, valid at its second, expired at its third: each
        // crosses a bound the last verdict was judged on, so the memo answers none of them.
        let crossing = try fixture.token(["nbf": .number(.integer(Int64(Self.now + 6))), "exp": .number(.integer(Int64(Self.now + 7)))])
        let unique = try (0..<5).map { try fixture.token(["jti": .string("u-\($0)")]) }
        let cache = SignatureCache()
        let evaluator = BatchEvaluator(policy: policy, jobs: 1, signatureCache: cache, verdictMemory: 1 << 20)
        var sharing = JudgementSharing(policy: evaluator.policy)
        for (line, token) in (unique + [crossing, crossing, crossing]).enumerated() {
            let record = BatchRecord(line: line + 1, input: nil, content: .token(TokenText(token), time: UnixTime(seconds: Self.now + Double(line)), inputs: [:]))
            _ = try #require(evaluator.evaluateNow(record, sharing: &sharing))
        }
        // The unique tokens and the crossing one's first sighting never asked; its second verified
        // and was kept, its third was answered.
        #expect(cache.statistics.misses == 1 && cache.statistics.hits == 1 && cache.count == 1, "\(cache.statistics)")
    }

    @Test("more repeated tokens than the memory holds: the memo stays within its bytes, keeps answering some, and the lines are those judged afresh")
    func boundedMemory() throws {
        let policy = try fixture.policy("")
        let tokens = try (0..<300).map { try fixture.token(["jti": .string("j-\($0)")]) }
        // Each token three times, in turn: kept from the first sighting while there is room, then
        // only a token seen more often than the entry it would displace.
        let records = (0..<3).flatMap { round in tokens.map { (token: $0, time: Self.now + Double(round), inputs: [String: JSONValue]()) } }
        let evaluator = BatchEvaluator(policy: policy, jobs: 1, signatureCache: SignatureCache(), verdictMemory: 64 << 10)
        var lines: [String] = []
        var sharing = JudgementSharing(policy: evaluator.policy)
        for (index, record) in records.enumerated() {
            let verdict = try #require(evaluator.evaluateNow(BatchRecord(line: index + 1, input: nil,
                                                                         content: .token(TokenText(record.token), time: UnixTime(seconds: record.time), inputs: [:])),
                                                             sharing: &sharing))
            lines.append(Self.line(of: verdict))
        }
        #expect(lines == judge(policy, records, memo: false).lines)
        let used = try #require(evaluator.verdictMemoryUsed)
        #expect(used <= 64 << 10, "\(used) bytes")
        // 64 KiB holds a fraction of the 300 verdicts; those it holds answer their later sightings.
        let reused = try #require(evaluator.reusedVerdicts)
        #expect(reused > 0 && reused < 300, "\(reused) reused")
    }

    @Test("a policy whose verdicts depend on keys that may rotate keeps none")
    func remoteKeysKeepNoVerdicts() throws {
        let policy = try Policy.load(text: """
        policy: remote
        token:
          algorithms: [ES256]
          keys: {jwks_uri: https://idp.example/jwks}
        """, file: "remote.yaml", environment: [:])
        #expect(!policy.verdictsReusable)
        #expect(BatchEvaluator(policy: policy, jobs: 1).reusedVerdicts == nil)
        #expect(try fixture.policy("").verdictsReusable)
    }

    @Test("the verdicts' share of a cache budget: none without reuse, half for HMAC alone, a quarter for a public key")
    func verdictShare() throws {
        func load(_ token: String) throws -> Policy {
            try Policy.load(text: "policy: p\ntoken:\n" + token, file: "p.yaml", environment: ["SECRET": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTAxMjM"])
        }
        let budget = 64 << 20
        let remote = try load("  algorithms: [ES256]\n  keys: {jwks_uri: https://idp.example/jwks}\n")
        let hmac = try load("  algorithms: [HS256, HS512]\n  keys: {secret: '${env:SECRET}'}\n")
        #expect(BatchEvaluator.verdictShare(of: budget, for: remote) == 0)
        #expect(BatchEvaluator.verdictShare(of: budget, for: hmac) == budget / 2)
        #expect(BatchEvaluator.verdictShare(of: budget, for: try fixture.policy("")) == budget / 4)
    }

    @Test("the context's window: a comparison keeps its side of the bound, reading the time keeps that instant, a NaN bound keeps all")
    func timeWindow() {
        let context = EvaluationContext(now: UnixTime(seconds: 100), inputs: [:], token: nil)
        #expect(context.timeWindow == .always)
        #expect(context.isBefore(150))
        #expect(context.timeWindow == TimeWindow(from: -.infinity, until: 150))
        #expect(!context.isBefore(80))
        #expect(!context.isBefore(.nan))
        #expect(context.timeWindow == TimeWindow(from: 80, until: 150))
        #expect(context.timeWindow.contains(UnixTime(seconds: 80)) && context.timeWindow.contains(UnixTime(seconds: 149.999)))
        #expect(!context.timeWindow.contains(UnixTime(seconds: 150)) && !context.timeWindow.contains(UnixTime(seconds: 79.999)))
        _ = context.now
        #expect(context.timeWindow == TimeWindow(from: 100, until: 100.nextUp))
        #expect(context.timeWindow.contains(UnixTime(seconds: 100)) && !context.timeWindow.contains(UnixTime(seconds: 100.nextUp)))
    }

    /// A worker scans the lines after the one it judges and readies the memo for them
    /// (`BatchEvaluator.judgeNow`): whatever the block's size and wherever a line the scan
    /// refuses lies in it (first, second, last), each line gets the verdict it gets without
    /// the memo, which scans nothing ahead.
    @Test("lines judged with the next ones scanned ahead get the verdicts of lines judged one by one, in blocks of 1 to 5 lines and whole")
    func scannedAhead() throws {
        let policy = try fixture.policy("")
        let valid = try fixture.token(["jti": .string("ahead-1")]), other = try fixture.token(["jti": .string("ahead-2")])
        let expired = try fixture.token(["exp": .number(.integer(Int64(Self.now) - 60))])
        let escaped = "\\u0065" + valid.dropFirst()
        func line(_ token: String, _ rest: String = ",\"ts\":\(Int(Self.now))") -> String { "{\"token\":\"\(token)\"\(rest)}" }
        let lines = [line("not-a-token"), line(valid), line(expired), line(valid), "{\"token\":\"\(valid)\",\r\"ts\":\(Int(Self.now))}",
                     line(other), line(valid, ",\"pad\":\"" + String(repeating: "x", count: 3000) + "\""), "not json", line(escaped), line(other, ""),
                     line(expired), line(valid), line(other), line(other), "[1]"]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ahead-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        func judged(blocksOf size: Int, memo: Bool) throws -> [String] {
            let evaluator = BatchEvaluator(policy: policy, defaultTime: UnixTime(seconds: Self.now), jobs: 1, signatureCache: SignatureCache(),
                                           verdictMemory: memo ? 1 << 20 : nil)
            var sharing = JudgementSharing(policy: evaluator.policy)
            let reader = LineReader(handle: try FileHandle(forReadingFrom: file), maxLineBytes: 2000)
            var written: [String] = []
            while true {
                let block = try reader.nextLines(upTo: size)
                if block.spans.isEmpty { break }
                var verdicts: [BatchVerdict] = [], next = 0
                #expect(evaluator.judgeNow(block, from: &next, of: nil, format: SharedRecordFormat(BatchRecordFormat()), into: &verdicts,
                                           sharing: &sharing) == nil)
                written += verdicts.map(Self.line(of:))
            }
            return written
        }
        let alone = try judged(blocksOf: 1, memo: false)
        #expect(alone.count == lines.count)
        #expect(alone.filter { $0.contains("\"valid\":true") }.count == 8, "\(alone)")
        for size in [1, 2, 3, 4, 5, 256] {
            let ahead = try judged(blocksOf: size, memo: true)
            #expect(ahead == alone, "blocks of \(size)")
        }
    }

    /// A worker judges a chunk of a log from its block of lines (`LineBlock`): once the chunk is
    /// judged, nothing the worker keeps (its request, the memo) holds the block.
    @Test("a chunk's block of lines is let go once its lines are judged, kept tokens copied out")
    func blockLetGo() throws {
        let policy = try fixture.policy("")
        let tokens = try (0..<3).map { try fixture.token(["jti": .string("b-\($0)")]) }
        let text = (tokens + tokens).map { "{\"token\":\"\($0)\",\"ts\":\(Int(Self.now))}\n" }.joined()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("block-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(text.utf8).write(to: file)
        let evaluator = BatchEvaluator(policy: policy, jobs: 1, signatureCache: SignatureCache(), verdictMemory: 1 << 20)
        var sharing = JudgementSharing(policy: evaluator.policy)
        var block = try LineReader(handle: FileHandle(forReadingFrom: file)).nextLines(upTo: 256)
        var verdicts: [BatchVerdict] = []
        var next = 0
        let waiting = evaluator.judgeNow(block, from: &next, of: nil, format: SharedRecordFormat(BatchRecordFormat()), into: &verdicts, sharing: &sharing)
        #expect(waiting == nil)
        #expect(verdicts.map(\.verdict.valid) == Array(repeating: true, count: 6))
        #expect(evaluator.reusedVerdicts == 3, "the memo kept the three tokens' verdicts")
        var bytes = block.bytes
        block = LineBlock(bytes: [], spans: [])
        // Written in place only if nothing else holds the bytes: a copy on write moves them.
        let address = bytes.withUnsafeBufferPointer { $0.baseAddress }
        bytes[0] = UInt8(ascii: " ")
        #expect(bytes.withUnsafeBufferPointer { $0.baseAddress } == address, "something the worker keeps holds the block")
        withExtendedLifetime((sharing, verdicts, evaluator)) {}
    }
}
