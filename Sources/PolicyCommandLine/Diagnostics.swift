import Foundation
public import PolicyRuntime

/// Prints diagnostics to standard error, each with its source line and caret.
public enum Diagnostics {
    /// Prints `diagnostics` in source order, each rendered with the line it points at.
    public static func print(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics.sorted(by: { $0.location < $1.location }) {
            let source = try? String(contentsOfFile: diagnostic.location.file, encoding: .utf8)
            FileHandle.standardError.write(Data((diagnostic.rendered(source: source) + "\n").utf8))
        }
    }
}
