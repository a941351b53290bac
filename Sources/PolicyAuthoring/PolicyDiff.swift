internal import Foundation
@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE

/// What a policy change does to real traffic (`policy-run diff`): every record of a token log
/// judged under the old and the new policy, each at its own time, and the records whose verdict
/// flips grouped by why.
///
/// The log is read twice, once per policy, through the same bounded reader and pipeline as
/// `policy-run batch`; only each record's old outcome (a flag and its codes) is kept between the
/// passes.
package struct PolicyDiff: Sendable {
    /// The policy as it is.
    package let old: Policy
    /// The policy as the change would make it.
    package let new: Policy
    /// How records are laid out (JSON lines or one token per line, which fields hold what).
    package var format: BatchRecordFormat
    /// Inputs given to every record, under both policies.
    package var inputs: [String: JSONValue] = [:]
    /// The time of records that carry none.
    package var defaultTime: UnixTime?
    /// Records judged in parallel.
    package var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Bounds of the log's lines and decompression.
    package var limits = BatchInputLimits.standard
    /// How many example line numbers a group keeps.
    package var examplesPerGroup = 5
    /// Whether the report counts records by time and flip (`PolicyDiffReport.timeline`), for
    /// the HTML report.
    package var countsByTime = false

    /// A diff of `old` and `new` over logs laid out as `format`.
    package init(old: Policy, new: Policy, format: BatchRecordFormat) {
        self.old = old
        self.new = new
        self.format = format
    }

    /// Judges the log at `path` (gzip or not) under both policies.
    ///
    /// - Throws: `BatchInputError` for an input past its bounds, or `CocoaError` when the file
    ///   cannot be opened.
    package func run(file path: String) async throws -> PolicyDiffReport {
        var before: [Int: Outcome] = [:]
        _ = try await evaluate(old, path) { verdict in before[verdict.line] = Outcome(verdict.verdict) }
        // Only a record's line identifies it across the passes: both read the same file in order.
        var report = PolicyDiffReport(records: 0)
        if countsByTime { report.timeline = TimeBuckets(dimensions: 1) }
        _ = try await evaluate(new, path) { verdict in
            let after = Outcome(verdict.verdict)
            report.records += 1
            guard let earlier = before[verdict.line] else { return }
            report.add(line: verdict.line, before: earlier, after: after, examples: examplesPerGroup, at: verdict.judgedAtClock ? nil : verdict.time)
        }
        report.groups.sort { a, b in
            (a.becameInvalid ? 0 : 1, -a.count, a.codes.joined(separator: ",")) < (b.becameInvalid ? 0 : 1, -b.count, b.codes.joined(separator: ","))
        }
        return report
    }

    private func evaluate(_ policy: Policy, _ path: String, _ emit: (BatchVerdict) async throws -> Void) async throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        let evaluator = BatchEvaluator(policy: policy, inputs: inputs, defaultTime: defaultTime, jobs: jobs, signatureCache: SignatureCache())
        return try await evaluator.run(BatchRecords(reader: LineReader(handle: handle, limits: limits), format: format), emit: emit)
    }

    /// A record's verdict, as far as the diff compares it: its codes, and the rules that refused it.
    struct Outcome: Sendable {
        let valid: Bool
        let codes: [String]
        let rules: [String]

        init(_ verdict: Verdict) {
            valid = verdict.valid
            codes = Set(verdict.findings.map(\.code.rawValue)).sorted()
            rules = verdict.findings.map { "\($0.rule) at \($0.at)" }
        }
    }
}

/// The records whose verdict a policy change flips, grouped by direction and codes.
package struct PolicyDiffReport: Sendable {
    /// Records whose verdict flipped for the same reason.
    package struct Group: Sendable {
        /// Valid under the old policy and invalid under the new one (or the reverse).
        package let becameInvalid: Bool
        /// The finding codes of the invalid side: why the new policy refuses, or why the old one did.
        package let codes: [String]
        /// How many records.
        public internal(set) var count: Int
        /// The first line numbers, in log order.
        public internal(set) var examples: [Int]
        /// The rules responsible, as `rule at file:line:column`, each once.
        public internal(set) var rules: [String]

        /// `valid → invalid: audience_mismatch`: the direction and the codes.
        package var label: String {
            Self.label(becameInvalid: becameInvalid, codes: codes)
        }

        static func label(becameInvalid: Bool, codes: [String]) -> String {
            (becameInvalid ? "valid → invalid: " : "invalid → valid: ") + (codes.isEmpty ? "(no finding)" : codes.joined(separator: ", "))
        }
    }

    /// Records read.
    public internal(set) var records: Int
    /// The flips, valid → invalid first, then by count.
    public internal(set) var groups: [Group] = []
    /// Records valid under both.
    public internal(set) var stillValid = 0
    /// Records invalid under both (with the same codes or not).
    public internal(set) var stillInvalid = 0
    /// Of those, records refused for other reasons under the new policy.
    public internal(set) var otherReasons = 0
    /// The flipped records by their own time, counted under their flip's label (`Group.label`);
    /// a record judged at the clock is counted as without a time. Nil unless the diff was asked for it.
    package internal(set) var timeline: TimeBuckets?

    /// Records whose verdict flipped.
    package var flipped: Int { groups.reduce(0) { $0 + $1.count } }

    mutating func add(line: Int, before: PolicyDiff.Outcome, after: PolicyDiff.Outcome, examples: Int, at time: UnixTime? = nil) {
        if timeline != nil, before.valid != after.valid {
            let label = Group.label(becameInvalid: !after.valid, codes: after.valid ? before.codes : after.codes)
            timeline!.add(at: time) { $0.add(label, in: 0) }
        }
        switch (before.valid, after.valid) {
        case (true, true): stillValid += 1
        case (false, false):
            stillInvalid += 1
            if before.codes != after.codes { otherReasons += 1 }
        case (true, false), (false, true):
            let becameInvalid = !after.valid
            // The invalid side says why: the new policy's refusal, or the old one's.
            let codes = becameInvalid ? after.codes : before.codes
            let rules = becameInvalid ? after.rules : before.rules
            if let index = groups.firstIndex(where: { $0.becameInvalid == becameInvalid && $0.codes == codes }) {
                groups[index].count += 1
                if groups[index].examples.count < examples { groups[index].examples.append(line) }
                for rule in rules where !groups[index].rules.contains(rule) { groups[index].rules.append(rule) }
            } else {
                groups.append(Group(becameInvalid: becameInvalid, codes: codes, count: 1, examples: [line], rules: rules))
            }
        }
    }

    /// The report as JSON, for tools.
    package var json: JSONValue {
        .object(JSONObject([
            "records": .number(.integer(Int64(records))),
            "flipped": .number(.integer(Int64(flipped))),
            "flips": .array(groups.map { group in
                .object(JSONObject([
                    "from": .string(group.becameInvalid ? "valid" : "invalid"),
                    "to": .string(group.becameInvalid ? "invalid" : "valid"),
                    "codes": .array(group.codes.map { .string($0) }),
                    "count": .number(.integer(Int64(group.count))),
                    "examples": .array(group.examples.map { .number(.integer(Int64($0))) }),
                    "rules": .array(group.rules.map { .string($0) }),
                ]))
            }),
            "unchanged": .object(JSONObject([
                "valid": .number(.integer(Int64(stillValid))),
                "invalid": .number(.integer(Int64(stillInvalid))),
                "invalid_for_other_reasons": .number(.integer(Int64(otherReasons))),
            ])),
        ]))
    }
}
