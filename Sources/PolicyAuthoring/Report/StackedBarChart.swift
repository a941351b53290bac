@_spi(RuleAuthoring) import PolicyRuntime

/// A stacked bar chart of counts over time as inline SVG, with no script: each series is one
/// path, each column carries a `<title>` its counts show in when pointed at, and the legend is
/// HTML beside it.
///
/// One path per series, not a rectangle per bar, keeps a chart of 160 columns and ten series a
/// few tens of kilobytes whatever the log.
package struct StackedBarChart: Sendable {
    /// The columns' time range and width.
    package let columns: ChartColumns
    /// The series, bottom first, each with a count per column.
    package let series: [(name: String, counts: [Int])]
    /// The colour of each series, in the same order.
    package let colours: [String]
    /// What is counted, in the plural (`records`, `flips`), for the tooltips.
    package let unit: String
    /// Whether the named series' counts are lower bounds (`ChartColumns.isExact`): written `≥`.
    package var lowerBounds = false
    /// The longest series name shown; a longer one is cut, and whole in its tooltip.
    static let maxNameCharacters = 60

    static let width = 960.0, height = 240.0
    static let left = 64.0, right = 12.0, top = 12.0, bottom = 36.0

    /// The chart's `<svg>` element, labelled `label` for screen readers.
    package func svg(label: String) -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let count = columns.columns.count
        let totals = (0..<count).map { index in series.reduce(0) { $0 + $1.counts[index] } }
        let scale = Self.niceMaximum(totals.max() ?? 0)
        let barWidth = plotWidth / Double(count)
        let gap = barWidth > 4 ? 1.0 : 0
        func y(_ value: Double) -> Double { Self.top + plotHeight * (1 - value / Double(scale)) }
        func y(_ value: Int) -> Double { y(Double(value)) }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"\(HTMLText.escaped(label))\">"
        // Horizontal grid and counts.
        for step in 0...4 {
            let value = Double(scale) * Double(step) / 4
            let lineY = Self.number(y(value))
            out += "<line class=\"grid\" x1=\"\(Self.number(Self.left))\" x2=\"\(Self.number(Self.width - Self.right))\" y1=\"\(lineY)\" y2=\"\(lineY)\"/>"
            out += "<text class=\"axis\" x=\"\(Self.number(Self.left - 6))\" y=\"\(Self.number(y(value) + 4))\" text-anchor=\"end\">\(Self.short(value))</text>"
        }
        // One path per series, stacked in order.
        var base = Array(repeating: 0, count: count)
        for (index, entry) in series.enumerated() {
            var path = ""
            for column in 0..<count where entry.counts[column] > 0 {
                let x = Self.left + Double(column) * barWidth
                let lower = y(base[column]), upper = y(base[column] + entry.counts[column])
                path += "M\(Self.number(x)) \(Self.number(upper))h\(Self.number(barWidth - gap))V\(Self.number(lower))H\(Self.number(x))z"
                base[column] += entry.counts[column]
            }
            if !path.isEmpty { out += "<path fill=\"\(colours[index % colours.count])\" d=\"\(path)\"/>" }
        }
        // Time labels: at most eight, on column boundaries, at round times: each label's span
        // (`every` columns) is a width of the ladder, and labels fall on its multiples.
        let every = Int(TimeBuckets.width(atLeast: Int64((count + 7) / 8) * columns.width, from: columns.width) / columns.width)
        let span = Int64(every) * columns.width
        let first = Int((TimeBuckets.floorDivide(columns.start + span - 1, span) * span - columns.start) / columns.width)
        // A range shorter than one label's span (the ladder's steps grow by up to 13) gets its first column's.
        for column in first < count ? Array(stride(from: first, to: count, by: every)) : [0] {
            let x = Self.number(Self.left + Double(column) * barWidth)
            out += "<line class=\"tick\" x1=\"\(x)\" x2=\"\(x)\" y1=\"\(Self.number(Self.top + plotHeight))\" y2=\"\(Self.number(Self.top + plotHeight + 4))\"/>"
            out += "<text class=\"axis\" x=\"\(x)\" y=\"\(Self.number(Self.height - Self.bottom + 18))\">\(Self.label(columns.start + Int64(column) * columns.width, width: columns.width))</text>"
        }
        // A column's counts, shown when pointed at.
        for column in 0..<count where totals[column] > 0 {
            let from = columns.start + Int64(column) * columns.width
            var title = "\(Self.span(from, width: columns.width)): \(HTMLText.count(totals[column])) \(totals[column] == 1 ? String(unit.dropLast()) : unit)"
            for (index, entry) in series.enumerated() where entry.counts[column] > 0 {
                title += "\n\(HTMLText.escaped(HTMLText.cut(entry.name, to: Self.maxNameCharacters))) \(bound(index))\(HTMLText.count(entry.counts[column]))"
            }
            out += "<rect class=\"column\" x=\"\(Self.number(Self.left + Double(column) * barWidth))\" y=\"\(Self.number(Self.top))\" "
                + "width=\"\(Self.number(barWidth))\" height=\"\(Self.number(plotHeight))\"><title>\(title)</title></rect>"
        }
        out += "</svg>"
        return out
    }

    /// The legend: a swatch and the name of each series, with its total.
    package func legend() -> String {
        var out = "<ul class=\"legend\">"
        for (index, entry) in series.enumerated() {
            out += "<li title=\"\(HTMLText.escaped(entry.name))\"><span class=\"swatch\" style=\"background:\(colours[index % colours.count])\"></span>"
                + "\(HTMLText.escaped(HTMLText.cut(entry.name, to: Self.maxNameCharacters))) <span class=\"muted\">\(bound(index))\(HTMLText.count(entry.counts.reduce(0, +)))</span></li>"
        }
        return out + "</ul>"
    }

    /// `≥ ` before a named series' count when the counts are lower bounds; the last series, which
    /// gathers the rest when they are, is not one.
    func bound(_ index: Int) -> String {
        lowerBounds && index < series.count - 1 ? "≥ " : ""
    }

    /// The smallest of 4, 5, 6, 8, 10, 12, 16, 20, 24, 30, 40, 50, 60 or 80 times a power of ten
    /// that is at least `value`: a scale whose quarters, the grid's lines, are round numbers.
    static func niceMaximum(_ value: Int) -> Int {
        var magnitude = 1
        while true {
            for factor in [4, 5, 6, 8, 10, 12, 16, 20, 24, 30, 40, 50, 60, 80] where factor * magnitude >= value { return factor * magnitude }
            magnitude *= 10
        }
    }

    /// `12k`, `1.5M`, `2.5`: an axis value in a few characters.
    static func short(_ value: Double) -> String {
        switch value {
        case ..<10_000: number(value)
        case ..<1_000_000: number((value / 100).rounded() / 10) + "k"
        default: number((value / 100_000).rounded() / 10) + "M"
        }
    }

    /// `12.5` and `12`: two decimals at most, none when whole.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// A column's first instant, as much of it as the width makes worth saying.
    static func label(_ second: Int64, width: Int64) -> String {
        let text = UnixTime.iso8601(Double(second))
        guard text.count == 20 else { return text }
        let date = text.prefix(10), time = text.dropFirst(11).prefix(5)
        return width >= 86_400 ? String(date) : "\(date.dropFirst(5)) \(time)"
    }

    /// `2026-11-20 10:00 – 10:10 UTC`: the span of a column.
    static func span(_ second: Int64, width: Int64) -> String {
        let from = UnixTime.iso8601(Double(second)), to = UnixTime.iso8601(Double(second + width))
        guard from.count == 20, to.count == 20 else { return "\(from) – \(to)" }
        let fromText = "\(from.prefix(10)) \(from.dropFirst(11).prefix(width < 60 ? 8 : 5))"
        let toText = (from.prefix(10) == to.prefix(10) ? "" : "\(to.prefix(10)) ") + to.dropFirst(11).prefix(width < 60 ? 8 : 5)
        return "\(fromText) – \(toText) UTC"
    }
}
