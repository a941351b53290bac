@_spi(RuleAuthoring) package import PolicyRuntime

/// What the HTML report of a batch run shows beyond its summary, gathered as the verdicts stream
/// past: records by their own time in three dimensions (the outcome, the issuer, the kid) and
/// the first lines of each finding code. A record judged at the wall clock has no time of its
/// own to chart: it is counted apart.
///
/// Each worker counts its own chunk (`add`), and the task that writes verdicts in input order
/// merges them (`merge`), so the examples are the first lines of the log in its order. Memory
/// is bounded whatever the log: `TimeBuckets` keeps at most 2,048 buckets of at most 32
/// values per dimension, and at most `examplesPerCode` examples of at most `maxCodes` codes.
package struct BatchLogReport: Sendable {
    /// One line of the log that had a finding.
    package struct Example: Sendable, Equatable {
        package let line: Int
        package let input: String?
        package let time: UnixTime?
        package let issuer: String?
        package let kid: String?
        package let message: String
    }

    /// The dimensions of `timeline`.
    package enum Dimension: Int, CaseIterable {
        /// `valid`, or the code of the verdict's first finding.
        case outcome
        /// The token's `iss` as stated (`-` when none).
        case issuer
        /// The token's header `kid` (`-` when none).
        case kid
    }

    /// The outcome counted for a valid record.
    package static let valid = "valid"
    /// The most examples kept for one finding code.
    package static let examplesPerCode = 3
    /// The most finding codes examples are kept for.
    package static let maxCodes = 200
    /// The longest example message kept, in characters.
    package static let maxMessageCharacters = 300

    /// Records by time, outcome, issuer and kid.
    package private(set) var timeline = TimeBuckets(dimensions: Dimension.allCases.count)
    /// The first lines with each finding code, in the order of the log.
    package private(set) var examples: [FindingCode: [Example]] = [:]
    /// Records judged at the clock (no time of their own, no default), not on the timeline.
    package private(set) var judgedAtClock = 0

    /// An empty report.
    package init() {}

    /// Counts one verdict.
    package mutating func add(_ verdict: BatchVerdict) {
        let judged = verdict.verdict
        if verdict.judgedAtClock { judgedAtClock += 1 }
        timeline.add(at: verdict.judgedAtClock ? nil : verdict.time) { bucket in
            bucket.add(judged.valid ? Self.valid : judged.findings.first?.code.rawValue ?? "invalid", in: Dimension.outcome.rawValue)
            bucket.add(verdict.issuer ?? "-", in: Dimension.issuer.rawValue)
            bucket.add(verdict.kid ?? "-", in: Dimension.kid.rawValue)
        }
        for finding in judged.findings where room(for: finding.code) > 0 {
            examples[finding.code, default: []].append(Example(
                line: verdict.line, input: verdict.input, time: verdict.time, issuer: verdict.issuer.map { HTMLText.cut($0, to: 200) },
                kid: verdict.kid.map { HTMLText.cut($0, to: 200) }, message: HTMLText.cut(finding.message, to: Self.maxMessageCharacters)))
        }
    }

    /// Adds the counts of the chunk after the ones counted so far.
    package mutating func merge(_ later: BatchLogReport) {
        timeline.merge(later.timeline)
        judgedAtClock += later.judgedAtClock
        for (code, found) in later.examples where room(for: code) > 0 {
            examples[code, default: []] += found.prefix(room(for: code))
        }
    }

    /// How many more examples of `code` are kept: none once it has its share, or when it is new
    /// and `maxCodes` codes have examples already.
    private func room(for code: FindingCode) -> Int {
        guard let kept = examples[code] else { return examples.count < Self.maxCodes ? Self.examplesPerCode : 0 }
        return Self.examplesPerCode - kept.count
    }
}
