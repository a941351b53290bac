import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(JSONWriting) @_spi(RuleAuthoring) import PolicyJOSE
import Rules
import Testing

/// Batch evaluation of token logs through the library: record times, field mapping, malformed
/// lines, order under parallelism, gzip input, the signature cache, records in = verdicts out.
@Suite("Batch evaluation")
final class BatchTests {
    let fixture = TokenFixture.shared
    /// This test's files, removed when it ends.
    let scratch: ScratchFolder
    var folder: URL { scratch.url }

    init() throws {
        scratch = try ScratchFolder("batch-tests")
    }

    /// Writes `text` to a file (gzip-compressed with `gzip`), returning its path.
    func file(_ text: String, gzip: Bool = false) throws -> URL {
        try file(bytes: Array(text.utf8), gzip: gzip)
    }

    func file(bytes: [UInt8], gzip: Bool = false, suffix: String = "jsonl") throws -> URL {
        let url = folder.appendingPathComponent("\(UUID().uuidString).\(suffix)")
        try Data(bytes).write(to: url)
        guard gzip else { return url }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-f", url.path]
        try process.run()
        process.waitUntilExit()
        return url.appendingPathExtension("gz")
    }

    func run(_ url: URL, format: BatchRecordFormat = BatchRecordFormat(), jobs: Int = 2, inputs: String = "",
             cache: SignatureCache? = SignatureCache()) async throws -> [BatchVerdict] {
        let policy = try fixture.policy(inputs.isEmpty ? "" : "nonce: ${nonce}", inputs: inputs)
        let evaluator = BatchEvaluator(policy: policy, defaultTime: UnixTime(seconds: TokenFixture.now), jobs: jobs, signatureCache: cache)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var verdicts: [BatchVerdict] = []
        let count = try await evaluator.run(BatchRecords(reader: LineReader(handle: handle), format: format)) { verdicts.append($0) }
        #expect(count == verdicts.count)
        return verdicts
    }

    static let nonceInput = "  nonce: {}\n"

    /// A gzip log cut short: what was read before the cut is judged on every job count, in
    /// order, and the run then fails with the reader's error, not with the chunks in work lost.
    @Test("a log cut short: every record read before the cut gets its verdict with 1, 2 and 4 jobs, then the run fails", arguments: [1, 2, 4])
    func logCutShort(jobs: Int) async throws {
        let tokens = try (0..<40).map { try fixture.token(["jti": .string("cut-\($0)")]) }
        let whole = try file((0..<6000).map { "{\"token\":\"\(tokens[$0 % 40])\",\"ts\":\(Int(TokenFixture.now))}\n" }.joined(), gzip: true)
        let compressed = try Data(contentsOf: whole)
        let cut = try file(bytes: Array(compressed.prefix(compressed.count / 2)), suffix: "jsonl.gz")
        var readable = 0
        let lines = LineReader(handle: try FileHandle(forReadingFrom: cut))
        do {
            while try lines.next() != nil { readable += 1 }
            Issue.record("the cut log read to its end")
        } catch {}
        #expect(readable > 1000)
        let evaluator = BatchEvaluator(policy: try fixture.policy(""), jobs: jobs, signatureCache: SignatureCache())
        let handle = try FileHandle(forReadingFrom: cut)
        defer { try? handle.close() }
        var numbers: [Int] = []
        await #expect(throws: BatchInputError.self) {
            try await evaluator.run(BatchRecords(reader: LineReader(handle: handle), format: BatchRecordFormat())) { numbers.append($0.line) }
        }
        #expect(numbers.count == readable, "verdicts of the lines read before the cut")
        #expect(numbers.elementsEqual(1...numbers.count), "verdicts in order")
    }

    @Test("each record is judged at its own time, from unix seconds or RFC 3339, and inputs come from mapped fields")
    func recordTime() async throws {
        let token = try fixture.token()
        let log = """
        {"token": "\(token)", "ts": 1795253400, "n": "n-123"}
        {"token": "\(token)", "ts": "2026-11-21T09:45:00Z", "n": "n-123"}
        {"token": "\(token)", "ts": "2026-11-21T13:00:00+02:00", "n": "n-123"}
        {"token": "\(token)", "ts": 1795339800.5, "n": "n-123"}
        {"token": "\(token)", "n": "n-123"}
        {"token": "\(token)", "ts": 1795253400, "n": "other"}
        """
        let format = BatchRecordFormat(inputFields: ["nonce": "n"])
        let verdicts = try await run(file(log), format: format, inputs: Self.nonceInput)
        #expect(verdicts.map(\.verdict.valid) == [true, true, false, false, true, false])
        #expect(verdicts[2].verdict.codes == [.tokenExpired])
        #expect(verdicts[5].verdict.codes == [.nonceMismatch])
        #expect(verdicts.map(\.issuer) == Array(repeating: "https://issuer.example", count: 6))
        #expect(verdicts.map(\.kid) == Array(repeating: "k1", count: 6))
    }

    @Test("a token written with escapes in its line is the token it spells: judged alike, and a repeat written either way is the same token")
    func escapedToken() async throws {
        let token = try fixture.token()
        let escaped = token.replacingOccurrences(of: ".", with: "\\u002e")
        let log = (0..<4).map { "{\"token\": \"\($0 % 2 == 0 ? token : escaped)\", \"ts\": 1795253400}" }.joined(separator: "\n")
        #expect(log.contains("\\u002e"))
        let verdicts = try await run(file(log))
        #expect(verdicts.map(\.verdict.valid) == [true, true, true, true])
        #expect(verdicts.map(\.kid) == Array(repeating: "k1", count: 4))
    }

    @Test("a record's time is read by UnixTime's parser: seconds as a number or text, or RFC 3339; an exponent, a sign or an instant out of range is record_time_invalid")
    func recordTimes() async throws {
        let token = try fixture.token()
        let times = [#"1795253400"#, #""1795253400""#, #""2026-11-21T09:30:00Z""#, #""1.7e9""#, #""+1795253400""#, #"1e300"#, #""0x6B02D318""#]
        let log = times.map { #"{"token": "\#(token)", "ts": \#($0)}"# }.joined(separator: "\n") + "\n"
        let verdicts = try await run(file(log))
        #expect(verdicts.map(\.verdict.valid) == [true, true, true, false, false, false, false])
        #expect(verdicts.dropFirst(3).map { $0.verdict.codes } == Array(repeating: [.recordTimeInvalid], count: 4))
    }

    @Test("malformed lines become verdicts with their codes and line numbers; blank lines are not records")
    func malformed() async throws {
        let token = try fixture.token()
        let log = "{\"token\": \"\(token)\", \"ts\": 1795253400}\n\nnot json\n[1]\n{\"ts\": 1}\n{\"token\": 7}\n{\"token\": \"\(token)\", \"ts\": \"noon\"}\n"
            + "\u{1}\u{2}\n{\"token\": \"\(token)\", \"ts\": 1795253400, \"extra\": \"\u{e9}\"}\n   \n"
        let verdicts = try await run(file(log))
        #expect(verdicts.map(\.line) == [1, 3, 4, 5, 6, 7, 8, 9])
        #expect(verdicts.map { $0.verdict.codes.first } == [nil, .recordMalformed, .recordMalformed, .recordFieldMissing, .recordFieldMissing,
                                                             .recordTimeInvalid, .recordMalformed, nil])
        #expect(verdicts[1].verdict.findings[0].at == "input:3")
        let summary = verdicts.reduce(into: BatchSummary()) { $0.add($1) }
        #expect(summary.records == 8 && summary.valid == 2 && summary.codes[.recordMalformed] == 3)
    }

    @Test("a summary counted a chunk at a time, runs of lines that share a judgement at once, is the summary counted record by record")
    func summaryInRuns() async throws {
        let valid = try fixture.token(), otherIssuer = try fixture.token(["iss": .string("https://other.example")])
        let expired = try fixture.token(["exp": .number(.integer(Int64(TokenFixture.now - 60)))]), otherKid = try fixture.token(header: ["kid": .string("k2")])
        let tokens = [valid, valid, valid, otherIssuer, otherIssuer, expired, valid, otherKid, otherKid, valid]
        var lines = tokens.map { #"{"token": "\#($0)", "ts": \#(TokenFixture.now)}"# }
        lines.insert("not json", at: 4)
        lines.append(#"{"token": "\#(valid)"}"#)
        let verdicts = try await run(file(lines.joined(separator: "\n")), jobs: 1)
        // The reuses of a kept verdict share its rendered judgement, so there are runs to count at once.
        #expect(verdicts[2].sharesJudgement(with: verdicts[1]))
        #expect(!verdicts[4].sharesJudgement(with: verdicts[3]))
        let byRecord = verdicts.reduce(into: BatchSummary()) { $0.add($1) }
        var inRuns = BatchSummary()
        inRuns.add(contentsOf: Array(verdicts[..<5]))
        inRuns.add(contentsOf: Array(verdicts[5...]))
        #expect(inRuns.records == 12 && inRuns.records == byRecord.records && inRuns.valid == byRecord.valid && inRuns.invalid == byRecord.invalid)
        #expect(inRuns.codes == byRecord.codes && inRuns.codes[.tokenExpired] == 1 && inRuns.codes[.recordMalformed] == 1)
        #expect(inRuns.issuers == byRecord.issuers && inRuns.issuers.counts["https://issuer.example"] == 9)
        #expect(inRuns.kids == byRecord.kids && inRuns.kids.counts["k2"] == 2 && inRuns.judgedAtClock == byRecord.judgedAtClock)
    }

    @Test("a token in JSON serialization is read as a string or as an object; each record judged as a compact one")
    func jsonSerializedTokens() async throws {
        let token = try fixture.token()
        let parts = token.split(separator: ".").map(String.init)
        let flattened = #"{"payload":"\#(parts[1])","protected":"\#(parts[0])","signature":"\#(parts[2])"}"#
        let escaped = flattened.replacingOccurrences(of: "\"", with: "\\\"")
        let forged = #"{"payload":"\#(parts[1])","protected":"\#(parts[0])","signature":"\#(parts[2].dropLast(2))\#(parts[2].hasSuffix("AA") ? "QA" : "AA")"}"#
        let log = """
        {"token": \(flattened), "ts": 1795253400}
        {"token": "\(escaped)", "ts": 1795253400}
        {"token": \(forged), "ts": 1795253400}
        {"token": {"payload": "e30", "signatures": []}, "ts": 1795253400}
        {"token": [1], "ts": 1795253400}
        """
        let verdicts = try await run(file(log))
        #expect(verdicts.map(\.verdict.valid) == [true, true, false, false, false])
        #expect(verdicts.dropFirst(2).map { $0.verdict.codes } == [[.signatureInvalid], [.malformedToken], [.recordFieldMissing]])
        #expect(verdicts[1].kid == "k1")
    }

    @Test("bytes that are not UTF-8, inside a JSON string or outside one, or on a bare-token line, are record_malformed")
    func notUTF8() async throws {
        let token = try fixture.token()
        var log = Array("{\"token\": \"\(token)\", \"ts\": 1795253400}\n".utf8)
        log += Array("{\"token\": \"".utf8) + [0xFF, 0xFE] + Array("\", \"ts\": 1795253400}\n".utf8)
        log += Array("{\"token\": \"\(token)\", \"ts\": 1795253400, \"x\": 1}".utf8) + [0xC3] + Array("\n".utf8)
        log += Array("{\"token\": \"\(token)\", \"note\": \"caf".utf8) + [0xC3, 0x28] + Array("\"}\n".utf8)
        let verdicts = try await run(file(bytes: log))
        #expect(verdicts.map { $0.verdict.codes.first } == [nil, .recordMalformed, .recordMalformed, .recordMalformed])
        #expect(verdicts[1].verdict.findings[0].message.contains("not valid UTF-8"))

        let lines = try file(bytes: Array("\(token)\n".utf8) + [0x65, 0x79, 0xFF, 0x0A])
        let evaluator = BatchEvaluator(policy: try fixture.policy(""), defaultTime: UnixTime(seconds: TokenFixture.now), jobs: 1)
        var bare: [BatchVerdict] = []
        try await evaluator.run(BatchRecords(reader: LineReader(handle: FileHandle(forReadingFrom: lines)), format: BatchRecordFormat(layout: .lines))) {
            bare.append($0)
        }
        #expect(bare.map { $0.verdict.codes.first } == [nil, .recordMalformed])
        #expect(bare[1].verdict.findings[0].message == "the line is not UTF-8")
    }

    @Test("verdict lines: the line number first, the token's iss and kid, then the verdict's members, then claims when asked; a transform runs per chunk, in order")
    func jsonLines() async throws {
        let token = try fixture.token()
        // Two whole chunks and part of a third.
        let total = 2 * BatchEvaluator.chunkSize + 44
        let url = try file((0..<total).map { "{\"token\": \"\($0 % 5 == 4 ? "x.y.z" : token)\", \"ts\": 1795253400}" }.joined(separator: "\n"))
        var evaluator = BatchEvaluator(policy: try fixture.policy(""), jobs: 3)
        evaluator.includeClaims = true
        var output: [UInt8] = []
        var chunks = 0
        let count = try await evaluator.run(BatchRecords(reader: LineReader(handle: FileHandle(forReadingFrom: url)), format: BatchRecordFormat()),
                                            transform: { verdicts in
            var writer = JSONWriter()
            for verdict in verdicts { verdict.writeJSONLine(to: &writer) }
            return writer.bytes
        }) { verdicts, lines in
            #expect(lines.filter { $0 == UInt8(ascii: "\n") }.count == verdicts.count)
            output += lines
            chunks += 1
        }
        #expect(count == total && chunks == 3)
        let parsed = try output.split(separator: UInt8(ascii: "\n")).map { try JSONParser().parseObject($0, what: "a verdict line") }
        #expect(parsed.map { $0["line"] } == (1...total).map { .number(.integer(Int64($0))) })
        #expect(parsed[0].names == ["line", "iss", "kid", "policy", "valid", "verified", "findings", "skipped", "outputs", "claims"])
        #expect(parsed[0]["iss"] == .string("https://issuer.example"))
        #expect(parsed[4].names.contains("iss") == false && parsed[4].names.contains("kid") == false)
        #expect(parsed[0]["claims"]?.objectValue?["iss"] == .string("https://issuer.example"))
        #expect(parsed[4]["valid"] == .bool(false) && parsed[4]["claims"] == nil)
        #expect(parsed[4]["findings"]?.arrayValue?.first?.objectValue?["code"] == .string("malformed_token"))
    }

    @Test("a log's records taken one at a time, as an AsyncSequence, are judged as run judges the log's lines in chunks")
    func recordsOneAtATime() async throws {
        let token = try fixture.token(), expired = try fixture.token(["exp": .number(.integer(Int64(TokenFixture.now) - 60))])
        let url = try file((0..<300).map { index -> String in
            switch index % 4 {
            case 0: "{\"token\": \"\(token)\", \"ts\": 1795253400}"
            case 1: "{\"token\": \"\(expired)\", \"ts\": \(1_795_253_400 + index)}"
            case 2: "not json"
            default: "{\"ts\": 1795253400}"
            }
        }.joined(separator: "\n"))
        func text(_ verdict: BatchVerdict) -> String {
            var writer = JSONWriter()
            verdict.writeJSONLine(to: &writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        let evaluator = BatchEvaluator(policy: try fixture.policy(""), jobs: 1)
        var chunked: [String] = []
        try await evaluator.run(BatchRecords(reader: LineReader(handle: FileHandle(forReadingFrom: url)), format: BatchRecordFormat())) {
            chunked.append(text($0))
        }
        var single: [String] = []
        for try await record in BatchRecords(reader: LineReader(handle: try FileHandle(forReadingFrom: url)), format: BatchRecordFormat()) {
            guard case .unparsed = record.content else {
                Issue.record("line \(record.line) was parsed by the reader")
                continue
            }
            single.append(text(await evaluator.evaluate(record)))
        }
        #expect(single.count == 300)
        #expect(single == chunked)
        #expect(single.filter { $0.contains("\"valid\":true") }.count == 75)
        #expect(single.filter { $0.contains("token_expired") }.count == 75)
        #expect(single.filter { $0.contains("record_malformed") }.count == 75)
        #expect(single.filter { $0.contains("record_field_missing") }.count == 75)
    }

    @Test("with four jobs, 2,000 mixed records come out complete and in input order")
    func ordering() async throws {
        let good = try fixture.token()
        let expired = try fixture.token(["exp": .number(.integer(1_795_252_000))])
        var lines: [String] = []
        var expected: [Bool] = []
        for index in 0..<2000 {
            let valid = index % 7 != 3
            lines.append("{\"token\": \"\(valid ? good : expired)\", \"ts\": 1795253400}")
            expected.append(valid)
        }
        let verdicts = try await run(file(lines.joined(separator: "\n")), jobs: 4)
        #expect(verdicts.map(\.line) == Array(1...2000))
        #expect(verdicts.map(\.verdict.valid) == expected)
    }

    @Test("several jobs decode with header memories of their own, locked by no other thread; one job with the policy's")
    func decodingMemoryPerWorker() async throws {
        let lines = try (0..<600).map { "{\"token\": \"\(try fixture.token(["jti": .string("j-\($0)")]))\", \"ts\": 1795253400}" }
        let log = try file(lines.joined(separator: "\n"))
        for jobs in [1, 2] {
            let policy = try fixture.policy("")
            let evaluator = BatchEvaluator(policy: policy, defaultTime: UnixTime(seconds: TokenFixture.now), jobs: jobs)
            let handle = try FileHandle(forReadingFrom: log)
            defer { try? handle.close() }
            var valid = 0
            try await evaluator.run(BatchRecords(reader: LineReader(handle: handle), format: BatchRecordFormat())) { valid += $0.verdict.valid ? 1 : 0 }
            #expect(valid == 600)
            #expect(policy.decodingMemory.headerCount == (jobs == 1 ? 1 : 0), "jobs \(jobs)")
        }
    }

    @Test("gzip input is read transparently, concatenated members included; a truncated file is an error")
    func gzipInput() async throws {
        let token = try fixture.token()
        let text = (0..<300).map { "{\"token\": \"\(token)\", \"ts\": \(1_795_253_400 + $0)}" }.joined(separator: "\n") + "\n"
        let compressed = try file(text, gzip: true)
        #expect(try await run(compressed).count == 300)
        let data = try Data(contentsOf: compressed)
        let twice = try file(bytes: Array(data + data), suffix: "gz")
        #expect(try await run(twice).map(\.line) == Array(1...600))
        let truncated = try file(bytes: Array(data.prefix(data.count / 2)), suffix: "gz")
        await #expect(throws: BatchInputError.self) { try await run(truncated) }
    }

    @Test("a token repeated across records is verified twice at most; with the cache off, every time")
    func cache() async throws {
        let token = try fixture.token()
        let log = (0..<50).map { "{\"token\": \"\(token)\", \"ts\": \(1_795_253_400 + $0 * 60)}" }.joined(separator: "\n")
        let cache = SignatureCache()
        let verdicts = try await run(file(log), jobs: 1, cache: cache)
        // The first record is verified without the cache (the memo never saw the token); from
        // the second on the valid ones reuse its verdict (VerdictMemoTests). The first of the 19
        // expired ones is past that verdict's window: judged again, verified and its check kept.
        // The other 18 reuse its verdict, each quoting its own time: no check is asked for.
        #expect(cache.statistics == .init(hits: 0, misses: 1))
        // Time rules still run per record: from 10:01 (exp plus the 60 s leeway) on, records are expired.
        #expect(verdicts.filter(\.verdict.valid).count == 31)
        #expect(try await run(file(log), jobs: 1, cache: nil).filter(\.verdict.valid).count == 31)
    }

    @Test("bare-token lines, and a line past the cap: cut, reported, and reading goes on")
    func linesAndLongLines() async throws {
        let token = try fixture.token()
        let url = try file("\(token)\n  \(token)  \n" + String(repeating: "x", count: 3000) + "\n\(token)\n")
        let handle = try FileHandle(forReadingFrom: url)
        let evaluator = BatchEvaluator(policy: try fixture.policy(""), defaultTime: UnixTime(seconds: TokenFixture.now), jobs: 2)
        var verdicts: [BatchVerdict] = []
        try await evaluator.run(BatchRecords(reader: LineReader(handle: handle, maxLineBytes: 1024), format: BatchRecordFormat(layout: .lines))) {
            verdicts.append($0)
        }
        #expect(verdicts.map(\.verdict.valid) == [true, true, false, true])
        #expect(verdicts[2].verdict.findings[0].message.contains("longer than"))
    }

    @Test("a line past the cap that starts with blanks is a record: reported, never skipped as blank")
    func longLineOfLeadingBlanks() async throws {
        let token = try fixture.token()
        // Cut within its spaces, the line looks blank; the token after them must not vanish.
        let url = try file("\(token)\n" + String(repeating: " ", count: 2000) + "\(token)\n" + String(repeating: "\t", count: 1024) + "\n\(token)\n")
        let handle = try FileHandle(forReadingFrom: url)
        let evaluator = BatchEvaluator(policy: try fixture.policy(""), defaultTime: UnixTime(seconds: TokenFixture.now), jobs: 1)
        var verdicts: [BatchVerdict] = []
        try await evaluator.run(BatchRecords(reader: LineReader(handle: handle, maxLineBytes: 1024), format: BatchRecordFormat(layout: .lines))) {
            verdicts.append($0)
        }
        // Line 3 is 1,024 tabs: within the cap, blank, not a record.
        #expect(verdicts.map(\.line) == [1, 2, 4])
        #expect(verdicts.map(\.verdict.valid) == [true, false, true])
        #expect(verdicts[1].verdict.findings.map(\.code) == [.recordMalformed])
    }

    @Test("the verdicts stream as an AsyncSequence")
    func asyncSequence() async throws {
        let token = try fixture.token()
        let url = try file((0..<10).map { _ in "{\"token\": \"\(token)\", \"ts\": 1795253400}" }.joined(separator: "\n"))
        let handle = try FileHandle(forReadingFrom: url)
        let evaluator = BatchEvaluator(policy: try fixture.policy(""), jobs: 2)
        var lines: [Int] = []
        for try await verdict in evaluator.verdicts(for: BatchRecords(reader: LineReader(handle: handle), format: BatchRecordFormat())) {
            lines.append(verdict.line)
        }
        #expect(lines == Array(1...10))
    }

    @Test("RFC 3339 times parse strictly")
    func rfc3339() {
        #expect(UnixTime.parseRFC3339("2026-11-21T09:30:00Z") == 1_795_253_400)
        #expect(UnixTime.parseRFC3339("2026-11-21t10:30:00.5+01:00") == 1_795_253_400.5)
        #expect(UnixTime.parseRFC3339("2024-02-29T00:00:00Z") == 1_709_164_800)
        for bad in ["2026-02-30T00:00:00Z", "2026-11-21 09:30:00Z", "2026-11-21T09:30:00", "2026-11-21T25:00:00Z", "yesterday", "2026-11-21T09:30:00.Z"] {
            #expect(UnixTime.parseRFC3339(bad) == nil, "\(bad)")
        }
    }
}

/// The replay detector's memory: bounded, forgetting the soonest to expire and saying so.
@Suite("Batch replay detector")
struct BatchReplayDetectorTests {
    @Test("at capacity, expired tokens go first, then the tenth that expire soonest, counted as forgotten")
    func capacity() throws {
        let fixture = TokenFixture.shared
        var detector = BatchReplayDetector(capacity: 10)
        let policy = try fixture.policy("expires: optional")
        func key(_ jti: String, exp: Int64, at time: Double) throws -> BatchReplayKey {
            let token = try fixture.token(["jti": .string(jti), "exp": .number(.integer(exp))])
            return BatchReplayKey(try #require(try policy.evaluateNow(EvaluationRequest(token: token, signatureCache: nil)).token), time: time)
        }
        for index in 0..<10 { #expect(try detector.check(key("j\(index)", exp: 1000 + Int64(index), at: 0), line: index + 1, input: nil) == nil) }
        #expect(try detector.check(key("j3", exp: 1003, at: 5), line: 11, input: nil)?.line == 4)
        // The eleventh forgets the one expiring soonest (j0) and keeps the rest.
        #expect(try detector.check(key("k", exp: 5000, at: 6), line: 12, input: nil) == nil)
        #expect(detector.forgotten == 1 && detector.peak == 10)
        #expect(try detector.check(key("j0", exp: 1000, at: 7), line: 13, input: nil) == nil)
        #expect(try detector.check(key("j9", exp: 1009, at: 8), line: 14, input: nil)?.line == 10)
        // Past their expiry, tokens are not replays, and are swept before anything is forgotten.
        #expect(try detector.check(key("j9", exp: 1009, at: 2000), line: 15, input: nil) == nil)
    }
}
