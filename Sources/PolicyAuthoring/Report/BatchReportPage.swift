internal import Foundation
@_spi(RuleAuthoring) package import PolicyRuntime

/// The HTML report of a `policy-run batch` run (`--report FILE.html`): the summary's figures,
/// verdicts, issuers and kids over record time, and the findings with their first lines.
///
/// One self-contained file: inline SVG and styles, no script, nothing fetched. Its size is bounded
/// whatever the log: at most 160 bars a chart and ten series, twenty rows a table.
package struct BatchReportPage: Sendable {
    /// The policy the log was judged by.
    package var policy: String
    /// The inputs read, as named on the command line.
    package var inputs: [String]
    /// The run's totals.
    package var summary: BatchSummary
    /// What the run gathered for the report.
    package var report: BatchLogReport
    /// How long the run took.
    package var seconds: Double
    /// The signature cache's counts, when the run had one.
    package var cache: SignatureCache.Statistics?
    /// When the report was made.
    package var generated: UnixTime

    /// The series each time chart shows besides "other".
    static let seriesLimit = 9
    /// The rows of the issuer and kid tables.
    static let tableRows = 20

    /// A report page of a run.
    package init(policy: String, inputs: [String], summary: BatchSummary, report: BatchLogReport, seconds: Double,
                 cache: SignatureCache.Statistics?, generated: UnixTime) {
        self.policy = policy
        self.inputs = inputs
        self.summary = summary
        self.report = report
        self.seconds = seconds
        self.cache = cache
        self.generated = generated
    }

    /// The page.
    package var html: String {
        let columns = ChartColumns(report.timeline)
        let withoutRecord = report.timeline.untimed - report.judgedAtClock
        let note = ReportPage.rangeNote(columns, withoutRecord: withoutRecord, atClock: report.judgedAtClock)
        var body = "<h1>Token log report: policy <code>\(HTMLText.escaped(policy))</code></h1>"
        body += "<p class=\"muted\">\(inputs.map { HTMLText.escaped($0) }.joined(separator: ", ")) · made by policy-run batch at "
            + "\(HTMLText.escaped(UnixTime.iso8601(generated.seconds)))</p>"
        body += figures()
        body += "<h2>Verdicts over record time</h2>"
        body += "<p class=\"muted\">Records by their own time (or --now), in UTC; an invalid one under its first finding's code.</p>"
        let outcomes = columns?.series(dimension: BatchLogReport.Dimension.outcome.rawValue, limit: Self.seriesLimit, otherLabel: "other findings",
                                       first: [BatchLogReport.valid]) ?? []
        body += ReportPage.chart(columns, series: outcomes,
                                 colours: ReportPage.colours(for: outcomes, first: outcomes.first?.name == BatchLogReport.valid ? ReportPage.validColour : nil,
                                                             otherLabel: "other findings", palette: ReportPage.findingPalette),
                                 unit: "records", label: "Verdicts over record time")
        body += note
        for (title, dimension, other, values) in [("Issuers over record time", BatchLogReport.Dimension.issuer, "other issuers", "issuers"),
                                                  ("Key IDs over record time", .kid, "other kids", "kids")] {
            body += "<h2>\(title)</h2>"
            let series = columns?.series(dimension: dimension.rawValue, limit: Self.seriesLimit, otherLabel: other) ?? []
            let exact = columns?.isExact(dimension: dimension.rawValue) ?? true
            body += ReportPage.chart(columns, series: series, colours: ReportPage.colours(for: series, otherLabel: other), unit: "records", label: title,
                                     lowerBounds: !exact)
            body += note + ReportPage.boundsNote(exact, values: values)
        }
        body += findings()
        body += "<h2>Issuers and key IDs</h2><p class=\"muted\">As the tokens state them, verified or not, over the whole log; <code>-</code> is a token without one or a line that held none.</p>"
        body += counts("Issuer", summary.issuers) + counts("kid", summary.kids)
        if let replays = summary.replays { body += self.replays(replays) }
        return ReportPage.page(title: "policy-run batch: \(policy)", body: body)
    }

    private func figures() -> String {
        var rows: [[String]] = [
            ["Records", HTMLText.count(summary.records)],
            ["Valid", "\(HTMLText.count(summary.valid)) (\(HTMLText.share(summary.valid, of: summary.records)))"],
            ["Invalid", "\(HTMLText.count(summary.invalid)) (\(HTMLText.share(summary.invalid, of: summary.records)))"],
            ["Time", "\(String(format: "%.3f", seconds)) s, \(HTMLText.count(seconds > 0 ? Int(Double(summary.records) / seconds) : 0)) records/s"],
        ]
        if let cache {
            rows.append(["Signature cache", "\(HTMLText.count(cache.hits)) hits, \(HTMLText.count(cache.misses)) misses"
                         + (cache.hitRate.map { " (\(HTMLText.share(Int(($0 * 10000).rounded()), of: 10000)) hit rate)" } ?? "")])
        }
        if let reused = summary.reusedVerdicts { rows.append(["Verdicts reused", HTMLText.count(reused)]) }
        if let replays = summary.replays { rows.append(["Replays found", HTMLText.count(replays.count)]) }
        return ReportPage.table(["Figure", "Value"], rows, className: "figures")
    }

    private func findings() -> String {
        var out = "<h2>Findings</h2>"
        guard summary.records > 0 else { return out + "<p>No records.</p>" }
        guard !summary.codes.isEmpty else { return out + "<p>No findings: every record is valid.</p>" }
        out += "<p class=\"muted\">A record with two findings counts under both; the lines are the first of each code in the log.</p>"
        let ranked = summary.codes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
        let rows = ranked.map { code, count in
            let lines = (report.examples[code] ?? []).map { example in
                let place = "line \(example.line)" + (example.input.map { " of \(HTMLText.escaped($0))" } ?? "")
                let time = example.time.map { " at \(UnixTime.iso8601($0.seconds))" } ?? ""
                return "<div class=\"example\">\(place)\(time): \(HTMLText.escaped(example.message))</div>"
            }
            // A code is the policy's snake_case name, never the log's text: it need not wrap.
            return ["<code class=\"nowrap\">\(HTMLText.escaped(code.rawValue))</code>", HTMLText.count(count), HTMLText.share(count, of: summary.records), lines.joined()]
        }
        return out + ReportPage.table(["Code", "Findings#", "Of records#", "First lines"], rows)
    }

    /// A table of the summary's counts; when they are not exact (more values than it keeps),
    /// each is marked as the lower bound it is.
    private func counts(_ name: String, _ counts: BoundedCounts) -> String {
        guard counts.total > 0 else { return "" }
        let ranked = counts.counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let bound = counts.exact ? "" : "≥ "
        var rows = ranked.prefix(Self.tableRows).map { value, count in
            ["<code>\(HTMLText.escaped(HTMLText.cut(value, to: 120)))</code>", bound + HTMLText.count(count), HTMLText.share(count, of: counts.total)]
        }
        let rest = counts.total - ranked.prefix(Self.tableRows).reduce(0) { $0 + $1.value }
        if rest > 0 { rows.append(["<span class=\"muted\">\(HTMLText.count(max(0, ranked.count - Self.tableRows))) more, and values not kept</span>", HTMLText.count(rest), HTMLText.share(rest, of: counts.total)]) }
        return ReportPage.table([name, "Records#", "Share#"], rows)
    }

    private func replays(_ replays: BatchSummary.Replays) -> String {
        var out = "<h2>Replays</h2><p>\(HTMLText.count(replays.count)) verified token\(replays.count == 1 ? "" : "s") presented again within \(replays.count == 1 ? "its" : "their") lifetime.</p>"
        guard !replays.examples.isEmpty else { return out }
        func place(_ sighting: BatchReplayDetector.Sighting) -> String {
            "line \(sighting.line)" + (sighting.input.map { " of \(HTMLText.escaped($0))" } ?? "")
        }
        out += ReportPage.table(["Token", "First", "Again"], replays.examples.map {
            ["<code>\(HTMLText.escaped(HTMLText.cut($0.label, to: 120)))</code>", place($0.first), place($0.again)]
        })
        return out
    }
}
