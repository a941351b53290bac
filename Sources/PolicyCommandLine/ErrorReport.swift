import Foundation
public import PolicyRuntime
public import PolicyJOSE

/// Errors as a JSON object on standard output, for commands run with `--format json`: a tool
/// reading that output gets `{"error": {...}}` rather than text it cannot parse.
public enum ErrorReport {
    /// Whether the command line asks for JSON output (`--format json` or `--format=json`).
    public static func wantsJSON(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.contains("--format=json") || zip(arguments, arguments.dropFirst()).contains { $0 == "--format" && $1 == "json" }
    }

    /// `{"error": {"code", "message", "diagnostics"?}}` on standard output.
    public static func print(code: String, message: String, diagnostics: [Diagnostic] = []) {
        var error = JSONObject(["code": .string(code), "message": .string(message)])
        if !diagnostics.isEmpty { error.set("diagnostics", .array(diagnostics.map(json))) }
        Swift.print(JSONValue.object(JSONObject(["error": .object(error)])).prettyPrinted())
    }

    /// `{"error": {"code", "message"}}` for an error of the engine.
    public static func print(_ error: some EngineError) {
        print(code: error.codeName, message: error.message)
    }

    /// A diagnostic as `lint --format json` and error reports write it.
    public static func json(_ diagnostic: Diagnostic) -> JSONValue {
        var object = JSONObject([
            "severity": .string(diagnostic.severity.rawValue), "code": .string(diagnostic.code.rawValue),
            "message": .string(diagnostic.message), "at": .string(diagnostic.location.description),
            "path": .string(diagnostic.path),
        ])
        if let hint = diagnostic.hint { object.set("hint", .string(hint)) }
        return .object(object)
    }
}
