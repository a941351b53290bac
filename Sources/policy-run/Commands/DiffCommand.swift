import ArgumentParser
import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyAuthoring
import PolicyCommandLine
import Rules

/// `policy-run diff`: what a policy change does to a token log, before rollout.
struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Judge a token log under two versions of a policy and report the records whose verdict flips.",
        discussion: """
        LOG is a file (gzip-compressed or not) in a batch record format (--input-format, \
        --token-field, --time-field as for batch); every record is judged under OLD and NEW at its \
        own time. Flips are grouped by direction and by the finding codes of the invalid side, \
        with counts, example line numbers and the rules responsible. \
        Exit status: 0 nothing flips, 1 some record flips, 2 usage, policy or input error.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "The policy as it is.")
    var old: String

    @Argument(help: "The policy as the change makes it.")
    var new: String

    @Argument(help: "The token log (a file; gzip allowed).")
    var log: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: ArgumentHelp("Also write a report as one self-contained HTML page to FILE: the flips over record time and by reason.",
                               valueName: "FILE.html"))
    var report: String?

    @OptionGroup var records: RecordFormatOptions

    @Option(name: .customLong("var"), help: ArgumentHelp("An input value for every record, NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var variables: [String] = []


    @Option(help: ArgumentHelp("The time of records without one: unix seconds or RFC 3339 (default: now).", valueName: "TIME"))
    var now: String?

    @Option(help: "Records evaluated in parallel (default: all cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("policy-root"),
            help: ArgumentHelp("A directory the policies may read bases and key files from (repeatable; default: each policy file's directory).", valueName: "DIR"))
    var roots: [String] = []

    func run() async throws {
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be from 1 to 256, got \(jobs)") }
        let oldPolicy = try PolicyFileOptions.compile(file: old, roots: roots)
        let newPolicy = try PolicyFileOptions.compile(file: new, roots: roots)
        for policy in [oldPolicy, newPolicy] where policy.subjects != ["token"] {
            throw ValidationError("diff judges token logs; policy \(policy.name) checks \(policy.subjects.joined(separator: ", ")) instead")
        }
        try InputFile.checkReadable(log)
        let reportFile = try HTMLReportFile(report)
        var diff = PolicyDiff(old: oldPolicy, new: newPolicy, format: try records.recordFormat())
        diff.countsByTime = reportFile != nil
        diff.inputs = try PolicyOptions.inputs(variables)
        if let now { diff.defaultTime = try TimeArgument.time(now, option: "--now") }
        diff.jobs = jobs
        let outcome: PolicyDiffReport
        do {
            outcome = try await diff.run(file: log)
        } catch let error as BatchInputError {
            FileHandle.standardError.write(Data("error: \(log): \(InertText.escaped(error.description))\n".utf8))
            throw ExitCode(2)
        } catch let error as EvaluationError {
            FileHandle.standardError.write(Data("error: \(InertText.escaped(error.message))\n".utf8))
            throw ExitCode(2)
        }
        switch format {
        case .json: print(outcome.json.prettyPrinted())
        case .text: print(DiffReportText(report: outcome, old: old, new: new, log: log).rendered)
        }
        try reportFile?.write(DiffReportPage(report: outcome, old: old, new: new, log: log, generated: .now).html)
        if outcome.flipped > 0 { throw ExitCode(1) }
    }
}

/// A diff report as a person reads it.
struct DiffReportText {
    let report: PolicyDiffReport
    let old: String
    let new: String
    let log: String

    var rendered: String {
        let inert: (String) -> String = InertText.escaped
        var lines = ["\(inert(old)) → \(inert(new)) over \(inert(log)): \(Grouped(report.records)) record\(report.records == 1 ? "" : "s"), "
                     + "\(Grouped(report.flipped)) flip\(report.flipped == 1 ? "" : "s")"]
        for becameInvalid in [true, false] {
            let groups = report.groups.filter { $0.becameInvalid == becameInvalid }
            guard !groups.isEmpty else { continue }
            let total = groups.reduce(0) { $0 + $1.count }
            lines.append(becameInvalid ? "  valid → invalid: \(Grouped(total))" : "  invalid → valid: \(Grouped(total))")
            for group in groups {
                let codes = group.codes.isEmpty ? "(no finding)" : group.codes.joined(separator: ", ")
                lines.append("    \(Grouped(group.count))  \(codes)   e.g. line\(group.examples.count == 1 ? "" : "s") \(group.examples.map(String.init).joined(separator: ", "))")
                for rule in group.rules.prefix(5) { lines.append("        \(becameInvalid ? "refused by" : "was refused by") \(inert(rule))") }
            }
        }
        lines.append("  unchanged: \(Grouped(report.stillValid)) valid, \(Grouped(report.stillInvalid)) invalid (\(Grouped(report.otherReasons)) of them for other reasons now)")
        return lines.joined(separator: "\n")
    }
}
