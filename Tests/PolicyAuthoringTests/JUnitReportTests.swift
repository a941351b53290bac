import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PolicyRuntime
import PolicyJOSE
import PolicyAuthoring
import Testing

@Suite("JUnit reports")
struct JUnitReportTests {
    /// Counts elements by name, failing on XML that is not well formed.
    final class ElementCounter: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        var attributes: [[String: String]] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            counts[name, default: 0] += 1
            if name == "testcase" { self.attributes.append(attributes) }
        }
    }

    @Test("the document is well formed, counts what ran, and escapes what a test file wrote")
    func document() throws {
        let here = SourceLocation(file: "p.test.yaml", line: 4, column: 5)
        let report = PolicyTestReport(path: "p.test.yaml", policyName: "p", problems: [], results: [
            PolicyTestCaseResult(name: "passes <&> \"quoted\"", location: here, outcome: .passed, verdict: nil, seconds: 0.0015),
            PolicyTestCaseResult(name: "fails\u{1B}[31m", location: here, outcome: .failed(["codes: expected [a], got [b]"]), verdict: nil, seconds: 0.25),
            PolicyTestCaseResult(name: "errs", location: here, outcome: .error("unknown input 'x'"), verdict: nil, seconds: 0),
        ], coverage: nil)
        let broken = PolicyTestReport(path: "q.test.yaml", policyName: nil, problems: [
            Diagnostic(.error, .unknownKey, "a test file has no key 'x'", at: SourceLocation(file: "q.test.yaml", line: 1, column: 1)),
        ], results: [], coverage: nil)
        let xml = JUnitReport([report, broken]).xml
        #expect(xml.contains("<testsuites name=\"policy-run test\" tests=\"4\" failures=\"1\" errors=\"2\" time=\"0.252\">"))
        #expect(xml.contains("name=\"passes &lt;&amp;&gt; &quot;quoted&quot;\""))
        #expect(xml.contains("name=\"fails\\u{1B}[31m\""))
        let counter = ElementCounter()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = counter
        #expect(parser.parse(), "not well formed: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.counts == ["testsuites": 1, "testsuite": 2, "testcase": 4, "failure": 1, "error": 2])
        #expect(counter.attributes.first?["name"] == "passes <&> \"quoted\"")
    }
}
