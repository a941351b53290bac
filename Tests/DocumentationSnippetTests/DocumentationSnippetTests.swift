import Foundation
import Testing

/// Every ```swift block of README.md and docs/ compiles: `Snippets.swift` holds each one inside
/// an `async` function (a service's handler) and, when it has no `await`, inside a synchronous
/// one too. This test checks the file is generated from the docs as they are now; compiling the
/// target is the rest of the test.
@Suite("Documentation snippets")
struct DocumentationSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generated = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snippets.swift")

    /// The Swift source for the snippets of `documents` (path relative to the root, and text).
    static func source(_ documents: [(path: String, text: String)]) -> String {
        var imports: [String] = []
        var functions: [String] = []
        for (path, text) in documents {
            let name = path.replacingOccurrences(of: "docs/", with: "").replacingOccurrences(of: ".md", with: "")
                .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).enumerated()
                .map { $0.offset == 0 ? $0.element.lowercased() : $0.element.prefix(1).uppercased() + $0.element.dropFirst().lowercased() }.joined()
            var number = 0
            var block: [String]?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if block == nil, line == "```swift" {
                    block = []
                } else if var lines = block {
                    guard line != "```" else {
                        block = nil
                        // A rule-authoring block declares types: the example package compiles and runs it.
                        if lines.first?.hasPrefix("@_spi(") == true { continue }
                        number += 1
                        let code = lines.filter { !$0.hasPrefix("import ") }.drop { $0.isEmpty }
                        let body = code.map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
                        imports += lines.filter { $0.hasPrefix("import ") }
                        let signature = "(token: String, nonce: String)"
                        functions.append("/// \(path), snippet \(number), in an async function.\nfunc \(name)\(number)Async\(signature) async throws {\n\(body)\n}")
                        if !lines.contains(where: { $0.contains("await ") }) {
                            functions.append("/// \(path), snippet \(number), in a synchronous function.\nfunc \(name)\(number)Sync\(signature) throws {\n\(body)\n}")
                        }
                        continue
                    }
                    lines.append(line)
                    block = lines
                }
            }
        }
        let header = "// Generated from the ```swift blocks of README.md and docs/*.md by DocumentationSnippetTests\n"
            + "// (SNIPPETS_UPDATE=1 swift test --filter DocumentationSnippetTests); compiling this file is the test.\n"
        return header + Set(imports).sorted().joined(separator: "\n") + "\n\n" + functions.joined(separator: "\n\n") + "\n"
    }

    @Test("Snippets.swift holds every Swift block of README.md and docs/ as they are now")
    func upToDate() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") }.sorted()
        let documents = try (["README.md"] + docs.map { "docs/\($0)" }).map { path in
            (path: path, text: try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8))
        }
        let expected = Self.source(documents)
        #expect(expected.contains("Async(token: String, nonce: String) async throws"), "no Swift block was found")
        if ProcessInfo.processInfo.environment["SNIPPETS_UPDATE"] == "1" {
            try expected.write(to: Self.generated, atomically: true, encoding: .utf8)
            return
        }
        let committed = try String(contentsOf: Self.generated, encoding: .utf8)
        #expect(committed == expected, "the docs' Swift blocks changed: run SNIPPETS_UPDATE=1 swift test --filter DocumentationSnippetTests")
    }

    /// docs/custom-rules.md shows the custom rule that `Examples/hummingbird-service` builds and
    /// runs outside the package (so only what is public or SPI compiles): the same declarations.
    @Test("the custom rule of docs/custom-rules.md is the example package's, declaration for declaration")
    func customRuleIsTheExample() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/custom-rules.md"), encoding: .utf8)
        let block = try #require(doc.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let declarations = try #require(block.components(separatedBy: "struct TenantRule").dropFirst().first?.components(separatedBy: "\nlet registry").first)
        let example = try String(contentsOf: Self.root.appendingPathComponent("Examples/hummingbird-service/Sources/TenantRule/main.swift"), encoding: .utf8)
        #expect(example.contains("struct TenantRule" + declarations), "docs/custom-rules.md and Examples/hummingbird-service/Sources/TenantRule/main.swift differ")
        #expect(block.hasPrefix("@_spi(RuleAuthoring) import PolicyEngine\n") && example.contains("\n@_spi(RuleAuthoring) import PolicyEngine\n"))
    }

    /// CI runs `.ci/run`; the README promises that its test command is what CI runs.
    @Test("the README's quickstart is two commands, and its test command (the last) is the command .ci/run ends with")
    func ciRunsTheReadmeTestCommand() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let readmeLines = block.split(separator: "\n").map(String.init)
        #expect(readmeLines == ["bash Scripts/quickstart.sh", "bash Scripts/test.sh"], "exactly two commands: the main job, every test")
        let script = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let commands = script.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(commands.last == readmeLines.last, "README: \(readmeLines.last ?? "none"); .ci/run ends with: \(commands.last ?? "nothing")")
        #expect(readmeLines.last == "bash Scripts/test.sh")
    }
}
