@_spi(RuleAuthoring) package import PolicyRuntime

/// The HTML report of `policy-run diff` (`--report FILE.html`): what a policy change flips in a
/// token log, over record time and grouped by why, with the first lines and the rules responsible.
///
/// Self-contained like `BatchReportPage`: inline SVG and styles, no script, nothing fetched.
package struct DiffReportPage: Sendable {
    /// The diff's outcome; its `timeline` feeds the chart.
    package var report: PolicyDiffReport
    /// The old and new policy files and the log, as named on the command line.
    package var old: String
    package var new: String
    package var log: String
    /// When the report was made.
    package var generated: UnixTime

    /// A report page of a diff.
    package init(report: PolicyDiffReport, old: String, new: String, log: String, generated: UnixTime) {
        self.report = report
        self.old = old
        self.new = new
        self.log = log
        self.generated = generated
    }

    /// The page.
    package var html: String {
        var body = "<h1>Policy change report: <code>\(HTMLText.escaped(old))</code> → <code>\(HTMLText.escaped(new))</code></h1>"
        body += "<p class=\"muted\">Over \(HTMLText.escaped(log)) · made by policy-run diff at \(HTMLText.escaped(UnixTime.iso8601(generated.seconds)))</p>"
        let becameInvalid = report.groups.filter(\.becameInvalid).reduce(0) { $0 + $1.count }
        body += ReportPage.table(["Figure", "Value"], [
            ["Records", HTMLText.count(report.records)],
            ["Flipped", "\(HTMLText.count(report.flipped)) (\(HTMLText.share(report.flipped, of: report.records)))"],
            ["Valid → invalid", HTMLText.count(becameInvalid)],
            ["Invalid → valid", HTMLText.count(report.flipped - becameInvalid)],
            ["Unchanged valid", HTMLText.count(report.stillValid)],
            ["Unchanged invalid", "\(HTMLText.count(report.stillInvalid)) (\(HTMLText.count(report.otherReasons)) of them for other reasons now)"],
        ], className: "figures")
        body += "<h2>Flips over record time</h2>"
        let columns = report.timeline.flatMap { ChartColumns($0) }
        let series = columns?.series(dimension: 0, limit: 9, otherLabel: "other flips") ?? []
        if report.flipped == 0 {
            body += "<p>No record flips: the change decides this log as the policy did.</p>"
        } else {
            body += ReportPage.chart(columns, series: series, colours: ReportPage.colours(for: series, otherLabel: "other flips"), unit: "flips",
                                     label: "Flips over record time")
            body += ReportPage.rangeNote(columns, unit: "flip", atClock: report.timeline?.untimed ?? 0)
        }
        body += "<h2>Flips by reason</h2>"
        if report.groups.isEmpty {
            body += "<p class=\"muted\">None.</p>"
        } else {
            body += ReportPage.table(["Flip", "Records#", "First lines", "Rules responsible"], report.groups.map { group in
                ["<code>\(HTMLText.escaped(group.label))</code>", HTMLText.count(group.count),
                 group.examples.map(String.init).joined(separator: ", "),
                 group.rules.prefix(5).map { "<div class=\"example\">\(HTMLText.escaped($0))</div>" }.joined()]
            })
        }
        return ReportPage.page(title: "policy-run diff: \(old) → \(new)", body: body)
    }
}
