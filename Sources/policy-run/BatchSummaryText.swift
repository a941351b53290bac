import Foundation
import PolicyRuntime
import PolicyAuthoring
import PolicyJOSE

/// A batch summary as a person reads it at the end of a run.
struct BatchSummaryText {
    let summary: BatchSummary
    let seconds: Double
    let cache: SignatureCache.Statistics?

    init(_ summary: BatchSummary, seconds: Double, cache: SignatureCache.Statistics?) {
        self.summary = summary
        self.seconds = seconds
        self.cache = cache
    }

    /// The most issuers or kids listed before the rest are counted together.
    static let listed = 10

    var rendered: String {
        let rate = seconds > 0 ? Int(Double(summary.records) / seconds) : 0
        var lines = ["\(Grouped(summary.records)) record\(summary.records == 1 ? "" : "s"): \(Grouped(summary.valid)) valid, \(Grouped(summary.invalid)) invalid "
            + "(\(String(format: "%.2f", seconds)) s, \(Grouped(rate)) records/s)"]
        if summary.judgedAtClock > 0 {
            lines.append("note: \(Grouped(summary.judgedAtClock)) record\(summary.judgedAtClock == 1 ? "" : "s") carried no time and \(summary.judgedAtClock == 1 ? "was" : "were") "
                         + "judged at the clock (check --time-field, or give --now)")
        }
        if !summary.codes.isEmpty {
            lines.append("findings:")
            lines += table(Dictionary(uniqueKeysWithValues: summary.codes.map { ($0.key.rawValue, $0.value) }), notListed: 0)
        }
        lines.append("issuers:")
        lines += table(summary.issuers.counts, notListed: summary.issuers.notListed)
        lines.append("kids:")
        lines += table(summary.kids.counts, notListed: summary.kids.notListed)
        if let replays = summary.replays {
            lines.append("replays: \(Grouped(replays.count)) token\(replays.count == 1 ? "" : "s") presented again within their lifetime")
            for replay in replays.examples {
                let place = { (sighting: BatchReplayDetector.Sighting) in "line \(sighting.line)" + (sighting.input.map { " of \(InertText.escaped($0))" } ?? "") }
                lines.append("  \(InertText.escaped(replay.label)): \(place(replay.first)), again at \(place(replay.again))")
            }
            if replays.forgotten > 0 {
                lines.append("  at most \(Grouped(replays.capacity)) tokens were held, and a token was forgotten \(Grouped(replays.forgotten)) times before it expired "
                             + "(a replay of it then was not seen): a --replay-capacity of at most \(replays.peak + replays.forgotten) holds every one, "
                             + "about \((replays.peak + replays.forgotten) * 70 / 1_000_000 + 1) MB")
            }
        }
        if let cache {
            let rate = cache.hitRate.map { " (hit rate \(String(format: "%.1f", $0 * 100))%)" } ?? ""
            let evicted = "\(Grouped(cache.evictions)) evicted" + (cache.evictions > 0 ? ": a larger --cache-size keeps more" : "")
            // A token the verdict memo had not seen is verified without asking the cache.
            let unasked = summary.firstSightings.flatMap { $0 > 0 ? "; \(Grouped($0)) first sightings verified without it" : nil } ?? ""
            lines.append("signature cache: \(Grouped(cache.hits)) repeated tokens answered, \(Grouped(cache.misses)) verified\(rate), \(evicted)\(unasked)")
        }
        if let reused = summary.reusedVerdicts, reused > 0 {
            lines.append("verdicts reused: \(Grouped(reused)) records, each a token judged before at a time its verdict holds")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The most frequent rows, then the rest counted together (`notListed`: records the bounded
    /// table kept no row for).
    private func table(_ counts: [String: Int], notListed: Int) -> [String] {
        // Issuers and kids come from unverified tokens too: escaped before they are laid out.
        let sorted = counts.map { (key: InertText.escaped($0.key), value: $0.value) }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let width = sorted.prefix(Self.listed).map(\.key.count).max() ?? 0
        var rows = sorted.prefix(Self.listed).map { "  \($0.key.padding(toLength: width, withPad: " ", startingAt: 0))  \(Grouped($0.value))" }
        let rest = sorted.dropFirst(Self.listed)
        let restRecords = rest.reduce(0) { $0 + $1.value } + notListed
        if restRecords > 0 {
            rows.append("  (\(rest.count) more\(notListed > 0 ? " and others not kept" : ""): \(Grouped(restRecords)))")
        }
        return rows
    }
}
