@_spi(RuleAuthoring) import PolicyRuntime

/// The frame of a self-contained HTML report: its styles, and a Content-Security-Policy that
/// lets the page load nothing and run no script, so that a log's text, escaped everywhere, could
/// not run even if it were not.
package enum ReportPage {
    /// The colours of a chart's series, then grey for "other": blues and greens first for
    /// issuers and kids, reds and oranges first for finding codes, so a code is never drawn in
    /// the colour of the issuer beside it.
    package static let palette = ["#3d5a80", "#00798c", "#7a9e3b", "#6a4c93", "#17becf", "#8c564b", "#c05299", "#edae49", "#d1495b", "#f77f00"]
    package static let findingPalette = ["#d1495b", "#f77f00", "#edae49", "#c05299", "#8c564b", "#6a4c93", "#9c6644", "#b5838d", "#e07a5f", "#7f5539"]
    /// The colour of the series that gathers the rest.
    package static let otherColour = "#9e9e9e"
    /// The colour of valid records.
    package static let validColour = "#2e9e5b"

    /// A whole page: `title` and `body` (already HTML).
    package static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLText.escaped(title))</title>
        <style>
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
        h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 32px; border-bottom: 1px solid #d8dee4; padding-bottom: 4px; }
        .muted { color: #656d76; } code { font: 12px ui-monospace, monospace; background: #f3f4f6; padding: 1px 4px; border-radius: 3px; }
        table { border-collapse: collapse; margin: 8px 0; } td, th { text-align: left; padding: 3px 12px 3px 0; vertical-align: top; }
        th { font-weight: 600; border-bottom: 1px solid #d8dee4; } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
        table.figures td:first-child { color: #656d76; }
        svg { width: 100%; height: auto; display: block; } svg text { font-size: 11px; fill: #656d76; }
        svg .grid { stroke: #eaeef2; } svg .tick { stroke: #8c959f; } svg .column { fill: transparent; } svg .column:hover { fill: rgba(0, 0, 0, 0.07); }
        ul.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
        ul.legend li, td code { overflow-wrap: anywhere; word-break: break-all; } td code.nowrap { white-space: nowrap; word-break: normal; }
        .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
        .example { font: 12px ui-monospace, monospace; word-break: break-all; }
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A chart of `series` with its legend, or a line saying there is nothing to chart.
    package static func chart(_ columns: ChartColumns?, series: [(name: String, counts: [Int])], colours: [String], unit: String, label: String,
                              lowerBounds: Bool = false) -> String {
        guard let columns, !series.isEmpty else { return "<p class=\"muted\">No \(unit) with a time to chart.</p>" }
        var chart = StackedBarChart(columns: columns, series: series, colours: colours, unit: unit)
        chart.lowerBounds = lowerBounds
        return "<figure>" + chart.svg(label: label) + chart.legend() + "</figure>"
    }

    /// Colours for `series`: `first` for a pinned first series when given, `palette` for the
    /// rest, and grey for the last when it is `otherLabel`.
    package static func colours(for series: [(name: String, counts: [Int])], first: String? = nil, otherLabel: String,
                                palette: [String] = ReportPage.palette) -> [String] {
        var palette = palette[...]
        return series.enumerated().map { index, entry in
            if index == 0, let first { return first }
            if entry.name == otherLabel, index == series.count - 1 { return otherColour }
            return palette.popFirst() ?? otherColour
        }
    }

    /// A line on the time range a chart shows and what it leaves out: `strays`' far-away
    /// records, `withoutRecord` lines that held no record, and `atClock` records judged at the
    /// clock (no time of their own, no `--now`), which have no place on a chart of record time.
    package static func rangeNote(_ columns: ChartColumns?, unit: String = "record", withoutRecord: Int = 0, atClock: Int = 0) -> String {
        var parts: [String] = []
        if let columns {
            parts.append("\(StackedBarChart.span(columns.start, width: columns.end - columns.start)), \(duration(columns.width)) a bar.")
            if columns.straysBefore > 0 { parts.append("Left out, stamped long before this range: \(HTMLText.count(columns.straysBefore, unit)).") }
            if columns.straysAfter > 0 { parts.append("Left out, stamped long after it: \(HTMLText.count(columns.straysAfter, unit)).") }
        }
        if atClock > 0 {
            parts.append("Not charted, judged at the clock because they carry no time (check --time-field) and no --now was given: \(HTMLText.count(atClock, unit)).")
        }
        if withoutRecord > 0 { parts.append("Not charted, lines that held no record: \(HTMLText.count(withoutRecord, "line")).") }
        return parts.isEmpty ? "" : "<p class=\"muted\">\(parts.joined(separator: " "))</p>"
    }

    /// A line saying that the named values' counts are lower bounds, when they are.
    package static func boundsNote(_ exact: Bool, values: String) -> String {
        exact ? "" : "<p class=\"muted\">Some bars met more than \(TimeBuckets.defaultValuesPerBucket) different \(values): there the ones shown are counted at least as marked (≥), and the rest under “other”.</p>"
    }

    /// `10 min`, `1 h`, `7 days`: a bucket width.
    package static func duration(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min"
        case ..<86_400: "\(seconds / 3600) h"
        default: seconds % 604_800 == 0 ? "\(seconds / 604_800) week\(seconds == 604_800 ? "" : "s")" : "\(seconds / 86_400) day\(seconds == 86_400 ? "" : "s")"
        }
    }

    /// A table of `rows` (cells already HTML) under `headers`; a header ending in `#` is a number column.
    package static func table(_ headers: [String], _ rows: [[String]], className: String? = nil) -> String {
        let numeric = headers.map { $0.hasSuffix("#") }
        var out = "<table\(className.map { " class=\"\($0)\"" } ?? "")><tr>"
        for (header, isNumber) in zip(headers, numeric) {
            out += "<th\(isNumber ? " class=\"n\"" : "")>\(HTMLText.escaped(isNumber ? String(header.dropLast()) : header))</th>"
        }
        out += "</tr>"
        for row in rows {
            out += "<tr>"
            for (cell, isNumber) in zip(row, numeric) { out += "<td\(isNumber ? " class=\"n\"" : "")>\(cell)</td>" }
            out += "</tr>"
        }
        return out + "</table>"
    }
}
