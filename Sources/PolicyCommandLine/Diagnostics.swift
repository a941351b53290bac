import Foundation
public import PolicyRuntime
import PolicyJOSE

/// Prints diagnostics to standard error, each with its source line and caret.
public enum Diagnostics {
    /// Prints `diagnostics` in source order, each rendered with the line it points at.
    public static func print(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics.sorted(by: { $0.location < $1.location }) {
            FileHandle.standardError.write(Data((rendered(diagnostic) + "\n").utf8))
        }
    }

    /// `diagnostic` with its source line: the one the compiler read, or, for a diagnostic about
    /// a file no compile read (a test file, a serve configuration), that file's line now.
    public static func rendered(_ diagnostic: Diagnostic) -> String {
        guard diagnostic.sourceLine == nil else { return diagnostic.rendered() }
        return diagnostic.rendered(source: try? String(contentsOfFile: diagnostic.location.file, encoding: .utf8))
    }
}
