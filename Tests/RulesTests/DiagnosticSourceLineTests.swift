import Foundation
import PolicyEngine
import PolicyJOSE
import Testing

/// A diagnostic shows the line the compiler read, never the file read again: a policy from
/// standard input or a string has its line, and a file changed since shows what was compiled.
@Suite("Diagnostic source lines")
struct DiagnosticSourceLineTests {
    @Test("a policy compiled from text, under a name no file has, renders its line and caret")
    func fromText() {
        do {
            _ = try Policy.load(text: "policy: p\ntoken:\n  algorithms: [RS256]\n  issuer: https://a.example\n  audiense: x\n", file: "/no/such/dir/-", environment: [:])
            Issue.record("a misspelled key must not compile")
        } catch {
            let typo = error.errors.first { $0.location.line == 5 }
            #expect(typo?.sourceLine == "  audiense: x")
            #expect(typo?.rendered().hasSuffix("\n    audiense: x\n    ^") == true, "\(typo?.rendered() ?? "none")")
        }
    }

    @Test("a file changed after its compile still shows the compiled line; a YAML syntax error shows its own line")
    func fileChangedSince() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("source-lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("p.yaml")
        try "policy: p\ntoken:\n  algorithms: [RS256]\n  keys: {jwks_file: missing.json}\n".write(to: file, atomically: true, encoding: .utf8)
        var diagnostics: [Diagnostic] = []
        do { _ = try Policy.load(file: file.path, environment: [:]) } catch { diagnostics = error.errors }
        try "replaced\nreplaced\nreplaced\nreplaced\n".write(to: file, atomically: true, encoding: .utf8)
        let keys = try #require(diagnostics.first { $0.location.line == 4 })
        #expect(keys.rendered().contains("\n    keys: {jwks_file: missing.json}\n"), "\(keys.rendered())")
        do {
            _ = try Policy.load(text: "policy: p\ntoken: [unclosed\n", file: "broken.yaml", environment: [:])
            Issue.record("broken YAML must not compile")
        } catch {
            #expect(error.errors.first?.sourceLine != nil, "\(error)")
        }
    }
}
