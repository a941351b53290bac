import ArgumentParser
import Foundation
import PolicyCommandLine

/// The page `--report FILE.html` names (`batch`, `diff`): opened before the log is read, so a
/// path that cannot be written stops the run at once, and written whole when the run ends, as
/// `OutputFile` writes (a file replaced only then, a device or FIFO written through).
struct HTMLReportFile {
    private let file: OutputFile

    /// Opens `path`; nil when no report is asked for.
    ///
    /// - Throws: `ValidationError` (exit 2) when the path cannot be written, or is `-` (the
    ///   commands' standard output carries their verdicts or their diff).
    init?(_ path: String?) throws {
        guard let path else { return nil }
        guard path != "-" else { throw ValidationError("--report - would mix the HTML page with what the command prints: write it to a file") }
        do {
            file = try OutputFile.open(path)
        } catch {
            throw ValidationError("--report: \(error.description)")
        }
    }

    /// Writes the page and puts the file in place.
    func write(_ html: String) throws {
        try file.handle.write(contentsOf: Array(html.utf8))
        do {
            try file.commit()
        } catch {
            throw ValidationError("--report: \(error.description)")
        }
    }
}
