import Foundation

/// One measured rate next to its reference rate from the same run.
struct BenchmarkRow {
    let name: String
    let ours: Double
    let reference: Double
    let referenceName: String
    let target: Double?

    var ratio: Double { ours / reference }
    var verdict: String {
        guard let target else { return "" }
        return ratio >= target ? "meets ≥ \(target)" : "BELOW \(target)"
    }
}

/// The rows as a Markdown table, as RESULTS.md records them.
func benchmarkTable(_ rows: [BenchmarkRow]) -> String {
    var lines = [
        "| measurement | ours (ops/s) | reference (ops/s) | reference | ratio | target |",
        "|---|---:|---:|---|---:|---|",
    ]
    for row in rows {
        lines.append("| \(row.name) | \(Int(row.ours)) | \(Int(row.reference)) | \(row.referenceName) | \(String(format: "%.2f", row.ratio)) | \(row.verdict) |")
    }
    return lines.joined(separator: "\n")
}
