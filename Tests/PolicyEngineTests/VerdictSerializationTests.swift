import Foundation
@testable import PolicyRuntime
@_spi(JSONWriting) @testable import PolicyJOSE
import Testing

/// One serializer: the writer's compact and indented text and `Codable` say the same thing in
/// section 8's names and order, and a batch line is what `Tests/Golden/verdict-lines.jsonl` holds,
/// the file `spark/tests` reads too.
@Suite("Verdict serialization")
struct VerdictSerializationTests {
    static let verdict: Verdict = {
        var trace = Trace(clock: .init(now: 1_795_251_600, source: "--now"))
        trace.entries = [.init(rule: "token.expires", status: .fail, at: "p.yaml:4:3", detail: "exp 1795251000"),
                         .init(rule: "token.keys", status: .notRun, at: "p.yaml:5:3", detail: nil)]
        trace.key = VerifiedKey(kid: "k1", source: "jwks_file keys.json", freshness: .stale)
        let nested = Finding(rule: "token.issuer", code: FindingCode("issuer_mismatch"), message: "iss \"a\"\n is not \"b\"", at: "b.yaml:3:3")
        return Verdict(policy: "p", valid: false, verified: true, keyFreshness: .stale,
                       findings: [Finding(rule: "request.bearer", code: FindingCode("bearer_invalid"), message: "the bearer token fails", at: "p.yaml:9:3", nested: [nested]),
                                  Finding(rule: "token.expires", code: FindingCode("token_expired"), message: "expired", at: "p.yaml:4:3")],
                       skipped: ["token.c_hash"], outputs: ["user": .string("u1"), "n": .number(.integer(3))], trace: trace)
    }()

    @Test("Codable writes what the writer writes, and reads it back")
    func codableAgrees() throws {
        let written = try JSONParser().parse(Array(Self.verdict.jsonText().utf8))
        let encoded = try JSONParser().parse(Array(JSONEncoder().encode(Self.verdict)))
        #expect(encoded == written)
        let decoded = try JSONDecoder().decode(Verdict.self, from: Data(Self.verdict.jsonText().utf8))
        #expect(decoded.jsonText() == Self.verdict.jsonText())
    }

    @Test("the indented text is the compact text laid out, as the tree printer lays it out")
    func prettyAgrees() throws {
        let pretty = Self.verdict.jsonText(pretty: true)
        #expect(pretty == Self.verdict.json.prettyPrinted())
        #expect(try JSONParser().parse(Array(pretty.utf8)) == JSONParser().parse(Array(Self.verdict.jsonText().utf8)))
        #expect(pretty.contains("\n  \"skipped\": [\n    \"token.c_hash\"\n  ],"))
        let empty = Verdict(policy: "p", valid: true, verified: true, findings: [], skipped: [], outputs: [:], trace: nil)
        #expect(empty.jsonText(pretty: true) == "{\n  \"policy\": \"p\",\n  \"valid\": true,\n  \"verified\": true,\n  \"findings\": [],\n  \"skipped\": [],\n  \"outputs\": {}\n}")
    }

    /// A verdict with nothing past its flags is written from fixed text: it must be the text
    /// the writer writes member by member, which the indented text still is.
    @Test("a verdict with no findings, skipped rules, outputs or trace is written as every other verdict")
    func plainVerdicts() throws {
        for (valid, verified) in [(true, true), (true, false), (false, true), (false, false)] {
            let verdict = Verdict(policy: "p\"q", valid: valid, verified: verified, findings: [], skipped: [], outputs: [:], trace: nil)
            #expect(verdict.jsonText() == #"{"policy":"p\"q","valid":\#(valid),"verified":\#(verified),"findings":[],"skipped":[],"outputs":{}}"#)
            #expect(try JSONParser().parse(Array(verdict.jsonText().utf8)) == JSONParser().parse(Array(verdict.jsonText(pretty: true).utf8)))
            var writer = JSONWriter()
            BatchVerdict(line: 7, input: "a.jsonl", verdict: verdict, issuer: "https://i", kid: "k\n1", claims: nil).writeJSONLine(to: &writer)
            #expect(writer.text == #"{"line":7,"input":"a.jsonl","iss":"https://i","kid":"k\n1","policy":"p\"q","valid":\#(valid),"verified":\#(verified),"findings":[],"skipped":[],"outputs":{}}"# + "\n")
        }
    }

    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden/verdict-lines.jsonl")

    /// Three batch lines with every member a line can have: a valid token judged with a trace, a
    /// key from a history snapshot and its claims; an invalid one with nested findings and a
    /// skipped rule; a record that is not one, read from standard input as policy_spark feeds it.
    static let goldenLines: [BatchVerdict] = {
        let snapshot = KeySnapshot(seen: 1_795_248_000, file: "sha256-3a1f0c7e9b2d4a6f8e1c3b5d7f9a0e2c4b6d8f1a3c5e7b9d0f2a4c6e8b1d3f5a.json")
        var trace = Trace(clock: .init(now: 1_795_253_400, source: "caller"))
        trace.entries = [.init(rule: "token.issuer", status: .pass, at: "policy.yaml:4:3", detail: "iss \"https://issuer.example\""),
                         .init(rule: "token.nonce", status: .skipped, at: "policy.yaml:6:3", detail: "the optional input 'nonce' is absent")]
        trace.key = VerifiedKey(kid: "k1", source: "jwks_uri https://issuer.example/keys", freshness: .fresh, snapshot: snapshot)
        let valid = Verdict(policy: "id-token", valid: true, verified: true, keyFreshness: .fresh, keySnapshot: snapshot, findings: [],
                            skipped: ["token.nonce"], outputs: ["user": .string("alice"), "groups": .array([.string("ops")])], trace: trace)
        let nested = Finding(rule: "token.expires", code: FindingCode("token_expired"), message: "expired at 2026-11-21T08:00:00Z", at: "bearer.yaml:5:3")
        let invalid = Verdict(policy: "gateway", valid: false, verified: false, keyFreshness: .stale,
                              findings: [Finding(rule: "request.bearer", code: FindingCode("bearer_invalid"), message: "the bearer token fails bearer.yaml: token_expired",
                                                 at: "gateway.yaml:7:3", nested: [nested])],
                              skipped: [], outputs: [:], trace: nil)
        let record = Verdict(policy: "id-token", valid: false, verified: false, findings: [
            Finding(rule: "batch.record", code: FindingCode("record_malformed"), message: "the line is not a JSON object", at: "input:3"),
        ], skipped: [], outputs: [:], trace: nil)
        return [
            BatchVerdict(line: 1, input: "logs/a.jsonl", verdict: valid, issuer: "https://issuer.example", kid: "k1",
                         claims: JSONObject(["iss": .string("https://issuer.example"), "sub": .string("alice"), "exp": .number(.integer(1_795_255_200))])),
            BatchVerdict(line: 2, input: "logs/a.jsonl", verdict: invalid, issuer: "https://issuer.example", kid: "k2", claims: nil),
            BatchVerdict(line: 3, input: nil, verdict: record, issuer: nil, kid: nil, claims: nil),
        ]
    }()

    @Test("batch lines are byte for byte the golden lines spark/tests reads, and read back to the same lines")
    func goldenVerdictLines() throws {
        var writer = JSONWriter()
        for line in Self.goldenLines { line.writeJSONLine(to: &writer) }
        if ProcessInfo.processInfo.environment["GOLDEN_UPDATE"] == "1" { try Data(writer.bytes).write(to: Self.golden) }
        let golden = try Data(contentsOf: Self.golden)
        #expect(writer.text == String(decoding: golden, as: UTF8.self), "GOLDEN_UPDATE=1 swift test --filter VerdictSerializationTests rewrites it")
        for (line, text) in zip(Self.goldenLines, String(decoding: golden, as: UTF8.self).split(separator: "\n")) {
            let decoded = try JSONDecoder().decode(Verdict.self, from: Data(text.utf8))
            var again = JSONWriter()
            BatchVerdict(line: line.line, input: line.input, verdict: decoded, issuer: line.issuer, kid: line.kid, claims: line.claims).writeJSONLine(to: &again)
            #expect(again.text == text + "\n")
        }
    }

    static let goldenBatches = golden.deletingLastPathComponent().appendingPathComponent("verdict-batches.arrows")

    /// The golden lines as an Arrow stream in two record batches (the first line, then the other
    /// two), the file spark/tests reads with pyarrow and compares, row by row, with the lines.
    @Test("the golden lines as an Arrow stream are byte for byte the golden stream spark/tests reads")
    func goldenVerdictBatches() throws {
        var stream = BatchVerdictColumns.streamStart
        var columns = BatchVerdictColumns()
        columns.append(Self.goldenLines[0])
        columns.writeRecordBatch(to: &stream)
        columns.writeRecordBatch(to: &stream)
        #expect(columns.count == 0)
        for line in Self.goldenLines.dropFirst() { columns.append(line) }
        #expect(columns.count == 2)
        columns.writeRecordBatch(to: &stream)
        stream += BatchVerdictColumns.streamEnd
        #expect(stream.count % 8 == 0)
        if ProcessInfo.processInfo.environment["GOLDEN_UPDATE"] == "1" { try Data(stream).write(to: Self.goldenBatches) }
        #expect(stream == Array(try Data(contentsOf: Self.goldenBatches)), "GOLDEN_UPDATE=1 swift test --filter VerdictSerializationTests rewrites it")
    }

    @Test("verdicts whose text passes the byte limit are cut into record batches before the row that would pass it")
    func recordBatchesByText() throws {
        var whole: [UInt8] = []
        BatchVerdictColumns.writeRecordBatches(Self.goldenLines, to: &whole)
        var expected: [UInt8] = []
        var columns = BatchVerdictColumns()
        for line in Self.goldenLines {
            columns.append(line)
            columns.writeRecordBatch(to: &expected)
        }
        #expect(whole != expected)
        // A limit of one byte: every row past the first starts a batch of its own.
        var cut: [UInt8] = []
        BatchVerdictColumns.writeRecordBatches(Self.goldenLines, byteLimit: 1, to: &cut)
        #expect(cut == expected)
        // The golden stream's first batch is one row, its second the other two.
        var twoThenOne: [UInt8] = []
        BatchVerdictColumns.writeRecordBatches(Self.goldenLines.prefix(1), to: &twoThenOne)
        BatchVerdictColumns.writeRecordBatches(Self.goldenLines.dropFirst(), to: &twoThenOne)
        let golden = Array(try Data(contentsOf: Self.goldenBatches))
        #expect(golden == BatchVerdictColumns.streamStart + twoThenOne + BatchVerdictColumns.streamEnd)
    }

    /// Objects with their members in name order, to compare documents whose order differs.
    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .object(object):
            return .object(JSONObject(members: object.members.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
                .map { JSONMember(name: $0.name, value: sorted($0.value)) }))
        case let .array(items): return .array(items.map(sorted))
        default: return value
        }
    }
}
