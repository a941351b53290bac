@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyAuthoring

/// Test results as a person reads them: a line per case, what differed under a failure, the
/// coverage when asked for, and `N passed, M failed`.
struct TestReportText {
    let reports: [PolicyTestReport]
    let coverage: Bool
    let colour: Bool

    private func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    var rendered: String {
        let inert: (String) -> String = InertText.escaped
        var lines: [String] = []
        for report in reports {
            lines.append(inert(report.path) + (report.policyName.map { " (policy \(inert($0)))" } ?? ""))
            for problem in report.problems {
                lines.append("  \(paint("ERROR", "1;31"))  \(inert(problem.description))")
            }
            for result in report.results {
                switch result.outcome {
                case .passed:
                    lines.append("  \(paint("PASS", "32"))  \(inert(result.name))")
                case let .failed(differences):
                    lines.append("  \(paint("FAIL", "1;31"))  \(inert(result.name))  (\(result.location))")
                    lines += differences.map { "        \(inert($0))" }
                    for finding in result.verdict?.findings ?? [] {
                        lines.append("        got \(finding.code.rawValue) from \(inert(finding.rule)): \(inert(finding.message)) (at \(inert(finding.at)))")
                    }
                case let .error(message):
                    lines.append("  \(paint("ERROR", "1;31"))  \(inert(result.name))  (\(result.location))")
                    lines.append("        \(inert(message))")
                }
            }
            if coverage, let ruleCoverage = report.coverage { lines += coverageLines(ruleCoverage, policy: report.policyName ?? report.path) }
        }
        let passed = reports.reduce(0) { $0 + $1.passed }
        let failed = reports.reduce(0) { $0 + $1.failed }
        let broken = reports.count { !$0.problems.isEmpty }
        var summary = "\(passed) passed, \(failed) failed"
        if broken > 0 { summary += ", \(broken) file\(broken == 1 ? "" : "s") not loaded" }
        lines.append(failed + broken == 0 ? paint(summary, "32") : paint(summary, "1;31"))
        return lines.joined(separator: "\n")
    }

    private func coverageLines(_ coverage: RuleCoverage, policy: String) -> [String] {
        let rules = coverage.exercisedRules
        let codes = coverage.producedCodes
        var lines = ["  coverage of \(InertText.escaped(policy)): rules \(rules.covered)/\(rules.total), finding codes \(codes.covered)/\(codes.total)"]
        for entry in coverage.entries where !entry.exercised || !entry.missingCodes.isEmpty {
            let what = entry.exercised
                ? "no case produced \(entry.missingCodes.map(\.rawValue).joined(separator: ", "))"
                : "never ran" + (entry.missingCodes.isEmpty ? "" : " (codes \(entry.missingCodes.map(\.rawValue).joined(separator: ", ")))")
            lines.append("    \(entry.rule) (\(entry.location)): \(what)")
        }
        return lines
    }
}
