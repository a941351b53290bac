import Foundation
import PolicyAuthoring
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// docs/writing-policies.md stays true: its policy and test file compile, pass, and are formatted.
@Suite("Writing policies guide")
struct WritingPoliciesGuideTests {
    @Test("the guide's policy and its test file pass policy-run test and fmt --check")
    func guideExamples() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/writing-policies.md"), encoding: .utf8)
        let blocks = guide.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        try #require(blocks.count >= 2)
        let directory = try TestDirectory()
        try directory.write("orders-api.yaml", blocks[0])
        let tests = try directory.write("orders-api.test.yaml", blocks[1])
        let report = await (try PolicyTestRunner()).run(file: tests)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.results.count == 4 && report.failed == 0, "\(report.results.map(\.outcome))")
        for (name, text) in [("orders-api.yaml", blocks[0]), ("orders-api.test.yaml", blocks[1])] {
            #expect(try PolicyFormatter().format(text, file: name) == text, "\(name) in the guide is not formatted")
        }
    }
}
