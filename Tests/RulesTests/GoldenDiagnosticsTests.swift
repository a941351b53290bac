import Foundation
import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules
import Testing

/// The rendered diagnostics of every compile-error kind, compared with committed files (as
/// cel-go keeps its golden outputs): the message, `file:line:column`, the source line, the caret
/// and the hint, exactly as `policy-run lint` prints them.
///
/// `Golden/diagnostics/CODE.yaml` is the input for `CODE`; `CODE.txt` is what it renders to.
/// `helper-*.yaml` are bases other inputs extend. Run with `GOLDEN_UPDATE=1` to rewrite the
/// `.txt` files after a deliberate change, and review the diff.
@Suite("Golden diagnostics")
struct GoldenDiagnosticsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/diagnostics")

    /// What compiling `file` prints, with the folder's absolute path taken out so the output is
    /// the same in any clone.
    static func rendered(_ file: URL) -> String {
        let output: [String]
        do {
            let policy = try Policy.load(file: file.path, environment: [:])
            output = policy.warnings.map { $0.rendered(source: Self.source($0)) }
        } catch {
            output = error.sorted.map { $0.rendered(source: Self.source($0)) }
        }
        return output.joined(separator: "\n")
            .replacingOccurrences(of: folder.path + "/", with: "")
            .replacingOccurrences(of: folder.path, with: ".") + "\n"
    }

    static func source(_ diagnostic: Diagnostic) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: diagnostic.location.file))).flatMap { String(data: $0, encoding: .utf8) }
    }

    @Test("every diagnostic code renders as its golden file says", arguments: DiagnosticCode.allCases)
    func golden(_ code: DiagnosticCode) throws {
        let input = Self.folder.appendingPathComponent("\(code.rawValue).yaml")
        let expectedFile = Self.folder.appendingPathComponent("\(code.rawValue).txt")
        #expect(FileManager.default.fileExists(atPath: input.path), "no golden input for \(code.rawValue)")
        let actual = Self.rendered(input)
        #expect(actual.contains("[\(code.rawValue)]"), "\(code.rawValue).yaml does not produce \(code.rawValue):\n\(actual)")
        if ProcessInfo.processInfo.environment["GOLDEN_UPDATE"] == "1" {
            try actual.write(to: expectedFile, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: expectedFile, encoding: .utf8)
        #expect(actual == expected, "\(code.rawValue) renders differently; run with GOLDEN_UPDATE=1 and review the diff")
    }
}
