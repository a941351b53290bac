public import ArgumentParser
import Foundation
import Logging
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The entry point `policy-run` and `policy-serve` share: parse, run, and end every failure in one
/// style, `error: ...` with the usage of the command that failed.
///
/// Usage errors exit 2, as every verb documents, not ArgumentParser's 64; so does a
/// `CommandFailure` (a file that cannot be read), printed without the usage. Every logger of the
/// process writes to standard error through `InertLogHandler`, so text from a key document or a
/// policy file never reaches the terminal or a log collector with its control characters.
public enum CommandMain {
    /// Parses the process's arguments (or `arguments`) as `root` (or one of its subcommands)
    /// and runs the command; returns when it succeeded.
    public static func run(_ root: any ParsableCommand.Type, arguments: [String]? = nil) async {
        LoggingSystem.bootstrap { label in InertLogHandler.standardError(label: label) }
        var command: any ParsableCommand
        do {
            command = try root.parseAsRoot(arguments)
        } catch {
            fail(error, in: root, root: root)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error, in: type(of: command), root: root)
        }
    }

    /// Ends the process for `error`, raised by `command`'s parsing or run under `root`.
    static func fail(_ error: any Error, in command: any ParsableCommand.Type, root: any ParsableCommand.Type) -> Never {
        if let failure = error as? any CommandFailure {
            if ErrorReport.wantsJSON() {
                ErrorReport.print(code: failure.code, message: failure.message)
            } else {
                FileHandle.standardError.write(Data((inert("error: " + failure.message) + "\n").utf8))
            }
            Foundation.exit(2)
        }
        let code = command.exitCode(for: error)
        // --help and --version arrive as errors: they print to standard output and succeed.
        if code == .success { command.exit(withError: error) }
        var message = command.fullMessage(for: error)
        if !message.isEmpty, ErrorReport.wantsJSON() {
            let text = command.message(for: error)
            ErrorReport.print(code: code == .validationFailure ? "usage" : "error", message: text.hasPrefix("Error: ") ? String(text.dropFirst(7)) : text)
        } else if !message.isEmpty {
            if message.hasPrefix("Error: ") { message = "error: " + message.dropFirst("Error: ".count) }
            // A subcommand's own message names it alone: name it as it is typed.
            if command != root, let name = command.configuration.commandName, let rootName = root.configuration.commandName {
                message = message.replacingOccurrences(of: "Usage: \(name) ", with: "Usage: \(rootName) \(name) ")
                    .replacingOccurrences(of: "'\(name) --help'", with: "'\(rootName) \(name) --help'")
            }
            FileHandle.standardError.write(Data((inert(message) + "\n").utf8))
        }
        Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
    }

    /// `message` with each line made inert: the line breaks ArgumentParser lays the usage out with
    /// stay, while an error quoting a file name or a key source cannot carry an escape sequence.
    static func inert(_ message: String) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map(InertText.escaped).joined(separator: "\n")
    }
}
