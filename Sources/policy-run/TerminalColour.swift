import Foundation

/// Whether standard output gets ANSI colour: only on a terminal, and never when `NO_COLOR` is
/// set (no-color.org) or `TERM` is `dumb`.
enum TerminalColour {
    static var enabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isatty(STDOUT_FILENO) == 1
    }
}
