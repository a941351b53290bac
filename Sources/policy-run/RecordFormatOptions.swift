import ArgumentParser
import PolicyRuntime
import PolicyJOSE

/// How token-log records are laid out, for `batch` and `diff`.
struct RecordFormatOptions: ParsableArguments {
    enum InputFormat: String, ExpressibleByArgument, CaseIterable {
        case jsonl, lines
    }

    @Option(help: "jsonl (JSON lines, the default) or lines (one token per line).")
    var inputFormat: InputFormat = .jsonl

    @Option(help: "The record field holding the token.")
    var tokenField = "token"

    @Option(help: "The record field holding its time: unix seconds or RFC 3339 (records without one use --now or the wall clock).")
    var timeField = "ts"

    @Option(name: .customLong("var-field"), help: ArgumentHelp("A policy input taken from a record field, NAME=FIELD (repeatable).", valueName: "NAME=FIELD"))
    var varFields: [String] = []

    func validate() throws {
        _ = try fieldMap()
    }

    /// The record field each input is taken from, each input once.
    func fieldMap() throws -> [String: String] {
        var map: [String: String] = [:]
        for entry in varFields {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw ValidationError("--var-field expects NAME=FIELD, got '\(entry)'") }
            guard map[parts[0]] == nil else { throw ValidationError("--var-field \(parts[0]) is given twice") }
            map[parts[0]] = parts[1]
        }
        return map
    }

    /// The record format these options describe.
    func recordFormat() throws -> BatchRecordFormat {
        BatchRecordFormat(layout: inputFormat == .lines ? .lines : .jsonLines, tokenField: tokenField, timeField: timeField, inputFields: try fieldMap())
    }
}
