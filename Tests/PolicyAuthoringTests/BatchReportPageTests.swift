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
        let hostile = "<script>alert(1)</script>\"'&\u{1B}[31m"
        let html = Self.page([
            Self.verdict(line: 1, at: Self.start, valid: false, message: hostile, issuer: hostile, kid: hostile),
            Self.verdict(line: 2, at: Self.start + 60, valid: true),
        ])
        #expect(!html.contains("<script"))
        #expect(!html.contains("\u{1B}"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\u{FFFD}[31m"))
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
