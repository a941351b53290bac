import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@testable import PolicyAuthoring
import Testing

/// The HTML report of a batch run: what the log says is escaped everywhere, the page loads
/// nothing, and its size is bounded whatever the log.
@Suite("Batch HTML report")
struct BatchReportPageTests {
    static let start = 1_795_132_800.0

    static func verdict(line: Int, at seconds: Double?, valid: Bool, code: FindingCode = .signatureInvalid, message: String = "bad",
                        issuer: String? = "https://login.example", kid: String? = "k1") -> BatchVerdict {
        let findings = valid ? [] : [Finding(rule: "token.signature", code: code, message: message, at: "p.yaml:3:1")]
        return BatchVerdict(line: line, input: nil, time: seconds.map { UnixTime(seconds: $0) },
                            verdict: Verdict(policy: "p", valid: valid, verified: valid, findings: findings, skipped: [], outputs: [:], trace: nil),
                            issuer: issuer, kid: kid, claims: nil)
    }

    static func page(_ verdicts: [BatchVerdict]) -> String {
        var summary = BatchSummary()
        var report = BatchLogReport()
        for verdict in verdicts {
            summary.add(verdict)
            report.add(verdict)
        }
        return BatchReportPage(policy: "p", inputs: ["log.jsonl"], summary: summary, report: report, seconds: 1, cache: nil,
                               generated: UnixTime(seconds: start)).html
    }

    @Test("issuers, kids, messages and file names from the log are escaped; the page allows no script and loads nothing")
    func escaping() {
        let hostile = "<script>alert(1)</script>\"'&\u{1B}[31m\u{202E}gnp.exe"
        let html = Self.page([
            Self.verdict(line: 1, at: Self.start, valid: false, message: hostile, issuer: hostile, kid: hostile),
            Self.verdict(line: 2, at: Self.start + 60, valid: true),
        ])
        #expect(!html.contains("<script"))
        #expect(!html.contains("\u{1B}") && !html.contains("\u{202E}"))
        #expect(html.contains(#"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\u{001B}[31m\u{202E}gnp.exe"#))
        #expect(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""))
        #expect(!html.contains("src=\"http") && !html.contains("href=\"http"))
    }

    @Test("a key rotation shows both kids, and a failure spike sits in its own column")
    func rotation() throws {
        var verdicts: [BatchVerdict] = []
        for index in 0..<2880 {
            let time = Self.start + Double(index * 60)  // two days, a record a minute
            let spike = (18 * 3600..<19 * 3600).contains(index * 60)
            verdicts.append(Self.verdict(line: index + 1, at: time, valid: !spike, kid: index < 1440 ? "2026-a" : "2026-b"))
        }
        let html = Self.page(verdicts)
        #expect(html.contains("2026-a <span class=\"muted\">1,440</span>") && html.contains("2026-b <span class=\"muted\">1,440</span>"))
        // The columns are 30 minutes wide: the spike's two, and no other, count signature_invalid.
        let titles = html.components(separatedBy: "<title>").dropFirst().map { $0.components(separatedBy: "</title>")[0] }
        let spiked = titles.filter { $0.contains("signature_invalid") }
        #expect(spiked.count == 2, "\(spiked)")
        #expect(spiked.filter { $0.hasPrefix("2026-11-20 18:00 – 18:30 UTC: 30 records\nsignature_invalid 30") }.count == 1)
        #expect(spiked.filter { $0.hasPrefix("2026-11-20 18:30 – 19:00 UTC: 30 records\nsignature_invalid 30") }.count == 1)
        // Time labels at round times: two days in 30-minute bars are labelled every 6 hours, in each of the three charts.
        let labels = html.components(separatedBy: "<text class=\"axis\" x=\"").dropFirst().compactMap { $0.split(separator: ">").dropFirst().first?.split(separator: "<").first }
            .filter { $0.contains(":") }
        #expect(Array(labels.prefix(8)) == ["11-20 00:00", "11-20 06:00", "11-20 12:00", "11-20 18:00", "11-21 00:00", "11-21 06:00", "11-21 12:00", "11-21 18:00"] && labels.count == 24, "\(labels)")
    }

    @Test("issuers over time are counted exactly where a span meets many of them, and marked as lower bounds where too many")
    func exactCounts() {
        // Two days; every hour one main issuer 10 times, eight others 5 times, and 40 seen once.
        var verdicts: [BatchVerdict] = []
        for hour in 0..<48 {
            var issuers = Array(repeating: "https://login.example", count: 10) + (1...8).flatMap { Array(repeating: "https://idp\($0).example", count: 5) }
            issuers += (0..<40).map { "https://once-\(hour)-\($0).example" }
            for (index, issuer) in issuers.enumerated() {
                verdicts.append(Self.verdict(line: verdicts.count + 1, at: Self.start + Double(hour * 3600 + index * 40), valid: true, issuer: issuer))
            }
        }
        let html = Self.page(verdicts)
        #expect(html.contains("https://login.example <span class=\"muted\">480</span>"), "\(html.components(separatedBy: "<ul class=\"legend\">")[2].prefix(600))")
        #expect(html.contains("https://idp1.example <span class=\"muted\">240</span>"))
        let legends = html.components(separatedBy: "<ul class=\"legend\">").dropFirst().map { $0.components(separatedBy: "</ul>")[0] }
        #expect(legends.count == 3 && !legends.contains { $0.contains("≥") })
        // The whole log's table keeps a thousand issuers of the 1,929: its counts are marked as bounds.
        #expect(html.contains("<td><code>https://login.example</code></td><td class=\"n\">≥ "))

        // A flood of a hundred issuers a second: more than a bucket keeps, so the counts shown are lower bounds.
        var flood: [BatchVerdict] = []
        for index in 0..<20_000 { flood.append(Self.verdict(line: index + 1, at: Self.start + Double(index / 100), valid: true, issuer: "https://i\(index % 100).example")) }
        let marked = Self.page(flood)
        #expect(marked.contains("<span class=\"muted\">≥ "))
        #expect(marked.contains("counted at least as marked (≥)"))
    }

    @Test("records judged at the clock are not charted, and are counted apart")
    func clockRecords() {
        let verdicts = (0..<10).map { index in
            BatchVerdict(line: index + 1, input: nil, time: UnixTime(seconds: Self.start + Double(index)), atClock: index >= 7,
                         verdict: Verdict(policy: "p", valid: true, verified: true, findings: [], skipped: [], outputs: [:], trace: nil),
                         issuer: "https://login.example", kid: "k1", claims: nil)
        }
        let html = Self.page(verdicts)
        #expect(html.contains("valid <span class=\"muted\">7</span>"))
        #expect(html.contains("no --now was given: 3 records."))
    }

    @Test("a log of unique kids and long messages over a decade makes a page of bounded size")
    func bounded() {
        var report = BatchLogReport()
        var summary = BatchSummary()
        let message = String(repeating: "m", count: 5000)
        for index in 0..<100_000 {
            let verdict = Self.verdict(line: index, at: Self.start + Double(index) * 3170, valid: index % 3 != 0,
                                       code: FindingCode("x_code_\(index % 7)"), message: message,
                                       issuer: "https://issuer-\(index % 5000).example", kid: "kid-\(index)")
            summary.add(verdict)
            report.add(verdict)
        }
        #expect(report.timeline.buckets.count <= 4096)
        let html = BatchReportPage(policy: "p", inputs: ["log"], summary: summary, report: report, seconds: 1, cache: nil,
                                   generated: UnixTime(seconds: Self.start)).html
        #expect(html.utf8.count < 2 << 20, "\(html.utf8.count) bytes")
        // Ten series a chart at most: nine values and the rest.
        #expect(html.components(separatedBy: "<ul class=\"legend\">").dropFirst().allSatisfy { $0.components(separatedBy: "</ul>")[0].components(separatedBy: "<li>").count - 1 <= 10 })
    }
}
