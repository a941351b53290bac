import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// `policy-run batch` run as a user would: JSON-lines output, summary, exit codes.
@Suite("policy-run batch")
final class BatchCommandTests {
    /// This test's files, removed when it ends.
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-command-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    static let token = try! String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    static let policy = ["batch", "--policy", "Policies/okta-id-token.yaml", "--var-field", "nonce=n"]

    func log(_ lines: [String]) throws -> String {
        let url = folder.appendingPathComponent("log-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func record(ts: String = "1795253400", nonce: String = "n-0S6_WzA2Mj") -> String {
        #"{"token": "\#(token)", "ts": \#(ts), "n": "\#(nonce)"}"#
    }

    @Test("every record gets one verdict line in order; exit 1 when any is invalid; the summary counts codes, issuers and kids")
    func mixedLog() throws {
        let input = try log([Self.record(), Self.record(ts: "\"2026-11-22T09:30:00Z\""), "garbage", Self.record(nonce: "other"), Self.record()])
        let summaryFile = folder.appendingPathComponent("summary-\(UUID().uuidString).json").path
        let run = try DecodeCommandTests.run(Self.policy + ["--jobs", "2", "--summary-json", summaryFile, input])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.map { $0["line"] as? Int } == [1, 2, 3, 4, 5])
        #expect(lines.map { $0["valid"] as? Bool } == [true, false, false, false, true])
        #expect(lines.map { $0["iss"] as? String } == [String?](repeating: "https://dev-123.okta.com/oauth2/default", count: 2) + [nil] + [String?](repeating: "https://dev-123.okta.com/oauth2/default", count: 2))
        #expect(lines.map { $0["kid"] as? String } == ["test-rs256", "test-rs256", nil, "test-rs256", "test-rs256"])
        #expect(run.stderr.contains("5 records: 2 valid, 3 invalid"))
        #expect(run.stderr.contains("signature cache: 3 repeated tokens answered, 1 verified (hit rate 75.0%), 0 evicted"))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile))) as! [String: Any]
        #expect(summary["records"] as? Int == 5 && summary["invalid"] as? Int == 3)
        #expect((summary["codes"] as? [String: Int])?["record_malformed"] == 1)
        #expect((summary["codes"] as? [String: Int])?["nonce_mismatch"] == 1)
        #expect((summary["issuers"] as? [String: Int])?["https://dev-123.okta.com/oauth2/default"] == 4)
        #expect((summary["kids"] as? [String: Int])?["test-rs256"] == 4)
        let cache = summary["signature_cache"] as? [String: Any]
        #expect(cache?["hits"] as? Int == 3 && cache?["misses"] as? Int == 1 && cache?["hit_rate"] as? Double == 0.75 && cache?["evictions"] as? Int == 0)
    }

    @Test("--report writes one self-contained page with the figures, the charts and the findings' first lines, with two jobs as with one")
    func htmlReport() throws {
        let input = try log([Self.record(), Self.record(ts: "\"2026-11-22T09:30:00Z\""), "garbage", Self.record(nonce: "other"), Self.record()])
        var pages: [String] = []
        for jobs in ["1", "2"] {
            let report = folder.appendingPathComponent("report-\(jobs).html")
            let run = try DecodeCommandTests.run(Self.policy + ["--jobs", jobs, "--output", "/dev/null", "--report", report.path, input])
            #expect(run.status == 1, "\(run.stderr)")
            pages.append(try String(contentsOf: report, encoding: .utf8))
        }
        let page = pages[0]
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</html>\n"))
        #expect(page.contains("policy <code>okta-id-token</code>"))
        #expect(page.contains("<td>Records</td><td>5</td>") && page.contains("<td>Invalid</td><td>3 (60.0%)</td>"))
        #expect(page.contains("line 3: the line is not a JSON object"))
        #expect(page.contains("<code class=\"nowrap\">nonce_mismatch</code>") && page.contains("line 4 at 2026-11-21T09:30:00Z: "))
        #expect(page.contains("<h2>Key IDs over record time</h2>") && page.contains("test-rs256 <span class=\"muted\">4</span>"))
        #expect(page.contains("Not charted, lines that held no record: 1 line."))
        // Only the run's time differs between one job and two.
        let withoutTimes = pages.map { $0.replacingOccurrences(of: #"<td>Time</td><td>[^<]*</td>|made by policy-run batch at [0-9TZ:-]+"#, with: "", options: .regularExpression) }
        #expect(withoutTimes[0] == withoutTimes[1])
    }

    @Test("records without a time judged at the clock are said so, in the text summary, its JSON and the report; with --now they are not")
    func recordsWithoutTime() throws {
        let untimed = #"{"token": "\#(Self.token)", "n": "n-0S6_WzA2Mj"}"#
        let input = try log([Self.record(), untimed, untimed])
        let summaryFile = folder.appendingPathComponent("summary-\(UUID().uuidString).json").path
        let report = folder.appendingPathComponent("untimed.html")
        let run = try DecodeCommandTests.run(Self.policy + ["--output", "/dev/null", "--summary-json", summaryFile, "--report", report.path, input])
        #expect(run.stderr.contains("note: 2 records carried no time and were judged at the clock (check --time-field, or give --now)"), "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile))) as! [String: Any]
        #expect(summary["judged_at_clock"] as? Int == 2)
        #expect(try String(contentsOf: report, encoding: .utf8).contains("no --now was given: 2 records."))
        let given = try DecodeCommandTests.run(Self.policy + ["--now", "1795253400", "--output", "/dev/null", "--summary-json", summaryFile, input])
        #expect(!given.stderr.contains("judged at the clock"), "\(given.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile))) as! [String: Any])["judged_at_clock"] as? Int == 0)
    }

    @Test("--report to a folder, or to standard output, is a usage error before any record is read")
    func htmlReportPlaces() throws {
        let input = try log([Self.record()])
        let folderRun = try DecodeCommandTests.run(Self.policy + ["--report", folder.path, input])
        #expect(folderRun.status == 2 && folderRun.stderr.contains("--report: cannot write to '\(folder.path)': Is a directory"), "\(folderRun.stderr)")
        #expect(folderRun.stdout.isEmpty)
        let stdoutRun = try DecodeCommandTests.run(Self.policy + ["--report", "-", input])
        #expect(stdoutRun.status == 2 && stdoutRun.stderr.contains("--report - would mix the HTML page with what the command prints"))
    }

    @Test("--detect-replay: a verified token presented again within its lifetime is marked with both lines, in the verdict and the summary; after exp it is not")
    func detectReplay() throws {
        // The sample token has no jti: it is known by its signed bytes. It expires at 1795255200.
        let input = try log([Self.record(), Self.record(ts: "1795253460"), "garbage", Self.record(nonce: "other"), Self.record(ts: "1795255900"),
                             Self.record(ts: "1795255901")])
        let summaryFile = folder.appendingPathComponent("summary-\(UUID().uuidString).json").path
        let run = try DecodeCommandTests.run(Self.policy + ["--detect-replay", "--jobs", "2", "--summary-json", summaryFile, input])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let codes = lines.map { (($0["findings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String } }
        #expect(codes == [[], ["token_replayed"], ["record_malformed"], ["nonce_mismatch", "token_replayed"], ["token_expired", "token_too_old"], ["token_expired", "token_too_old"]])
        let message = (lines[1]["findings"] as? [[String: Any]])?.first?["message"] as? String
        #expect(message?.contains("a token without jti was presented before, at line 1") == true, "\(message ?? "")")
        #expect(run.stderr.contains("replays: 2 tokens presented again within their lifetime"))
        #expect(run.stderr.contains("a token without jti: line 1, again at line 2"))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile))) as! [String: Any]
        let replays = summary["replays"] as? [String: Any]
        #expect(replays?["count"] as? Int == 2 && replays?["forgotten_before_expiry"] as? Int == 0)
        let example = (replays?["examples"] as? [[String: Any]])?.first
        #expect((example?["first"] as? [String: Any])?["line"] as? Int == 1 && (example?["again"] as? [String: Any])?["line"] as? Int == 2)
        // Without the flag nothing is marked.
        let plain = try DecodeCommandTests.run(Self.policy + [input])
        #expect(!plain.stdout.contains("token_replayed") && !plain.stderr.contains("replays:"))
    }

    @Test("where verdicts are kept, a token's first sighting is verified without asking the signature cache, and the summary counts it")
    func firstSightingsUncached() throws {
        // The sample token at three times, with no input of its own per record: the first judged
        // without asking the cache, the second answered by the first's verdict, the third (expired,
        // a verdict of its own) verified and its check kept.
        let lines = ["1795253400", "1795253460", "1795255900"].map { #"{"token": "\#(Self.token)", "ts": \#($0)}"# }
        let summaryFile = folder.appendingPathComponent("summary-\(UUID().uuidString).json").path
        let run = try DecodeCommandTests.run(["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n-0S6_WzA2Mj",
                                              "--summary-json", summaryFile, try log(lines)])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("signature cache: 0 repeated tokens answered, 1 verified (hit rate 0.0%), 0 evicted; 1 first sightings verified without it"),
                "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile))) as! [String: Any]
        let cache = summary["signature_cache"] as? [String: Any]
        #expect(cache?["first_sightings"] as? Int == 1 && cache?["misses"] as? Int == 1 && summary["verdicts_reused"] as? Int == 1, "\(summary)")
    }

    @Test("--cache-size sets the cache's memory in binary units; a size that is not one, one out of range, or one beside --no-cache is a usage error that says so")
    func cacheSize() throws {
        let input = try log([Self.record(), Self.record(), Self.record()])
        let sized = try DecodeCommandTests.run(Self.policy + ["--cache-size", "8MiB", input])
        #expect(sized.status == 0 && sized.stderr.contains("signature cache: 2 repeated tokens answered, 1 verified (hit rate 66.7%)"), "\(sized.stderr)")
        for (arguments, message) in [
            (["--cache-size", "64MB"], "--cache-size: '64MB' is not a size: write a whole number of bytes, or of KiB, MiB or GiB (64MiB)"),
            (["--cache-size", "512KiB"], "--cache-size: '512KiB' is out of range: from 1MiB to 64GiB"),
            (["--cache-size", "8MiB", "--no-cache"], "give --no-cache or --cache-size, not both"),
        ] {
            let run = try DecodeCommandTests.run(Self.policy + arguments + [input])
            #expect(run.status == 2 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }

    @Test("all valid exits 0; --only-invalid writes nothing then; --output and --include-claims; standard input")
    func optionsAndStdin() throws {
        let input = try log([Self.record(), Self.record()])
        let quiet = try DecodeCommandTests.run(Self.policy + ["--only-invalid", input])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty)
        let outputFile = folder.appendingPathComponent("out-\(UUID().uuidString).jsonl")
        let toFile = try DecodeCommandTests.run(Self.policy + ["--include-claims", "--output", outputFile.path, input])
        #expect(toFile.status == 0 && toFile.stdout.isEmpty)
        let written = try String(contentsOf: outputFile, encoding: .utf8)
        #expect(written.split(separator: "\n").count == 2 && written.contains(#""claims":{"iss":"https://dev-123.okta.com/oauth2/default""#))
        let piped = try DecodeCommandTests.run(["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n-0S6_WzA2Mj",
                                                "--input-format", "lines", "--now", "2026-11-21T09:30:00Z", "-"], stdin: Self.token + "\n\n" + Self.token + "\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.split(separator: "\n").count == 2)
    }

    @Test("--output-format arrow: one schema, a record batch per chunk, the end marker, even for no records; never beside --summary-json - on standard output")
    func arrowStream() throws {
        let endOfStream: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]
        let input = try log([Self.record(), "garbage", Self.record(nonce: "other")])
        let outputFile = folder.appendingPathComponent("out-\(UUID().uuidString).arrows")
        let run = try DecodeCommandTests.run(Self.policy + ["--output-format", "arrow", "--output", outputFile.path, input])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run.stderr)")
        #expect(run.stderr.contains("3 records: 1 valid, 2 invalid"))
        let stream = [UInt8](try Data(contentsOf: outputFile))
        #expect(stream.starts(with: BatchVerdictColumns.streamStart))
        #expect(stream.suffix(8).elementsEqual(endOfStream))
        // One record batch between them: a continuation marker, then the message's length.
        let batch = stream.dropFirst(BatchVerdictColumns.streamStart.count).dropLast(8)
        #expect(batch.prefix(4).elementsEqual([0xFF, 0xFF, 0xFF, 0xFF]) && batch.count % 8 == 0 && batch.count > 100)

        let empty = folder.appendingPathComponent("empty-\(UUID().uuidString).arrows")
        let none = try DecodeCommandTests.run(Self.policy + ["--output-format", "arrow", "--output", empty.path, try log([""])])
        #expect(none.status == 0, "\(none.stderr)")
        #expect([UInt8](try Data(contentsOf: empty)) == BatchVerdictColumns.streamStart + endOfStream)

        let mixed = try DecodeCommandTests.run(Self.policy + ["--output-format", "arrow", "--summary-json", "-", input])
        #expect(mixed.status == 2 && mixed.stderr.contains("--summary-json - would follow the Arrow stream"), "\(mixed.stderr)")
        let unknown = try DecodeCommandTests.run(Self.policy + ["--output-format", "parquet", input])
        #expect(unknown.status == 2 && unknown.stderr.contains("parquet"))
    }

    @Test("usage errors exit 2: bad --var-field, an undeclared input, a missing file, a request policy, a truncated gzip")
    func usageErrors() throws {
        let input = try log([Self.record()])
        for arguments in [["--var-field", "nonce"], ["--var-field", "nonse=n"], ["--jobs", "0"], ["--max-line-bytes", "2000000000"], ["/nonexistent/log.jsonl"]] {
            let run = try DecodeCommandTests.run(["batch", "--policy", "Policies/okta-id-token.yaml"] + arguments + (arguments.last!.hasPrefix("/") ? [] : [input]))
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
        }
        let request = try DecodeCommandTests.run(["batch", "--policy", "Policies/oidc-authorize-request.yaml", input])
        #expect(request.status == 2 && request.stderr.contains("checks request"))
        let gz = folder.appendingPathComponent("cut-\(UUID().uuidString).gz")
        try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4B]).write(to: gz)
        let truncated = try DecodeCommandTests.run(Self.policy + [gz.path])
        #expect(truncated.status == 2 && truncated.stderr.contains("truncated"))
        // --no-decompress: the same bytes are a line, judged as a record like any other.
        let asLines = try DecodeCommandTests.run(Self.policy + ["--no-decompress", gz.path])
        #expect(asLines.status == 1 && asLines.stdout.contains("record_malformed"), "\(asLines.stderr)")
    }

    @Test("two inline key sets written alike: batch with the signature cache gives the verdicts of --no-cache")
    func inlineKeySetsThroughTheCache() throws {
        let (keyA, keyB) = (try JWK.generate(for: .es256), try JWK.generate(for: .es256))
        func inline(_ key: JWK) throws -> String { String(decoding: JSONValue.object(try key.publicKey.publicJSON()).serializedBytes(), as: UTF8.self) }
        let policy = folder.appendingPathComponent("two-sets.yaml")
        try """
        policy: two-sets
        token:
          algorithms: [ES256]
          keys: {jwk: \(try inline(keyA))}
          expires: optional
        rules:
          - any_of:
              - token: {keys: {jwk: \(try inline(keyB))}}
              - token: {keys: {jwk: \(try inline(keyA))}}
        """.write(to: policy, atomically: true, encoding: .utf8)
        let claims = JSONValue.object(JSONObject(["iss": .string("https://a.example")])).serializedBytes()
        let tokens = try [keyB, keyA].map { try CompactJWS.sign(payload: claims, algorithm: .es256, key: $0) }
        let input = try log(tokens.map { #"{"token": "\#($0)"}"# })
        let cached = try DecodeCommandTests.run(["batch", "--policy", policy.path, input])
        let uncached = try DecodeCommandTests.run(["batch", "--policy", policy.path, "--no-cache", input])
        #expect(cached.stdout == uncached.stdout, "\(cached.stdout)\n\(uncached.stdout)")
        let valid = cached.stdout.split(separator: "\n").map { $0.contains(#""valid":true"#) }
        #expect(valid == [false, true], "the token signed with B alone is refused, the genuine one passes: \(cached.stdout)")
    }
}
