internal import PolicyRuntime
internal import PolicyJOSE

/// Test reports as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub's test reporters)
/// read: a `testsuite` per test file, a `testcase` per case, `failure` for a verdict that
/// differs and `error` for a case or file that could not run.
package struct JUnitReport: Sendable {
    /// The reports, one per test file.
    package let reports: [PolicyTestReport]

    /// A JUnit document of `reports`.
    package init(_ reports: [PolicyTestReport]) {
        self.reports = reports
    }

    /// The XML document.
    package var xml: String {
        let cases = reports.reduce(0) { $0 + max($1.results.count, $1.problems.isEmpty ? 0 : 1) }
        let failures = reports.reduce(0) { $0 + $1.results.count { if case .failed = $0.outcome { true } else { false } } }
        let errors = reports.reduce(0) { $0 + errorCount($1) }
        let seconds = reports.reduce(0) { $0 + $1.results.reduce(0) { $0 + $1.seconds } }
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuites name=\"policy-run test\" tests=\"\(cases)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(Self.time(seconds))\">"]
        for report in reports { lines += suite(report) }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    private func errorCount(_ report: PolicyTestReport) -> Int {
        report.problems.isEmpty ? report.results.count { if case .error = $0.outcome { true } else { false } } : 1
    }

    private func suite(_ report: PolicyTestReport) -> [String] {
        let name = Self.escaped(report.policyName ?? report.path)
        let failures = report.results.count { if case .failed = $0.outcome { true } else { false } }
        let seconds = report.results.reduce(0) { $0 + $1.seconds }
        var lines = ["  <testsuite name=\"\(name)\" file=\"\(Self.escaped(report.path))\" tests=\"\(max(report.results.count, report.problems.isEmpty ? 0 : 1))\" "
            + "failures=\"\(failures)\" errors=\"\(errorCount(report))\" time=\"\(Self.time(seconds))\">"]
        if !report.problems.isEmpty {
            let text = report.problems.map(\.description).joined(separator: "\n")
            lines.append("    <testcase name=\"(load)\" classname=\"\(name)\" file=\"\(Self.escaped(report.path))\">")
            lines.append("      <error message=\"\(Self.escaped(report.problems[0].message))\" type=\"load\">\(Self.escaped(text))</error>")
            lines.append("    </testcase>")
        }
        for result in report.results {
            let open = "    <testcase name=\"\(Self.escaped(result.name))\" classname=\"\(name)\" file=\"\(Self.escaped(result.location.file))\" "
                + "line=\"\(result.location.line)\" time=\"\(Self.time(result.seconds))\""
            switch result.outcome {
            case .passed:
                lines.append(open + "/>")
            case let .failed(differences):
                lines.append(open + ">")
                let detail = differences + (result.verdict?.findings.map { "\($0.code.rawValue) \($0.rule): \($0.message) (at \($0.at))" } ?? [])
                lines.append("      <failure message=\"\(Self.escaped(differences.joined(separator: "; ")))\" type=\"verdict\">\(Self.escaped(detail.joined(separator: "\n")))</failure>")
                lines.append("    </testcase>")
            case let .error(message):
                lines.append(open + ">")
                lines.append("      <error message=\"\(Self.escaped(message))\" type=\"evaluation\"/>")
                lines.append("    </testcase>")
            }
        }
        lines.append("  </testsuite>")
        return lines
    }

    static func time(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)"
    }

    /// Text as XML character data or attribute value: markup characters as entities, and the
    /// characters XML 1.0 cannot hold at all (C0 controls but tab and newline) as `\u{XX}`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
