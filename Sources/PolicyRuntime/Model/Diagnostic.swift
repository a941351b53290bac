@_spi(RuleAuthoring) import PolicyJOSE

/// One problem found while loading or compiling a policy, located in its source.
///
/// Diagnostics accumulate: the compiler reports every problem in one pass rather than stopping at
/// the first, so a policy author fixes a file in one round trip.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How bad a diagnostic is: an error stops the compile, a warning does not.
    public enum Severity: String, Sendable, Codable {
        case error
        case warning
    }

    /// Error or warning.
    public let severity: Severity
    /// The stable code, for tools and tests.
    public let code: DiagnosticCode
    /// What is wrong, for a person.
    public let message: String
    /// Where: `file:line:column`.
    public let location: SourceLocation
    /// The key path inside the policy, e.g. `token.claims.scp`; empty at the top level.
    public let path: String
    /// How to fix it, when there is something specific to say ("did you mean 'audience'?").
    public let hint: String?
    /// The source line `location` points at, as the loader read it: what `rendered()` shows,
    /// whether the policy came from a file, standard input or a string, and however the file
    /// changed since. Nil where no text was read (a file that could not be).
    public private(set) var sourceLine: String?

    /// The members a diagnostic's JSON carries; the source line is for terminals.
    private enum CodingKeys: String, CodingKey {
        case severity, code, message, location, path, hint
    }

    /// A diagnostic at `location`; `path` is the key path (`token.keys`), `hint` how to fix it.
    public init(_ severity: Severity, _ code: DiagnosticCode, _ message: String, at location: SourceLocation, path: String = "", hint: String? = nil) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
        self.path = path
        self.hint = hint
    }

    /// The most characters of a source line `rendered` shows.
    static let shownLineWidth = 120

    /// `file:line:column: error[code]: message (at path); hint`, one line.
    public var description: String {
        var text = "\(location): \(severity.rawValue)[\(code.rawValue)]: \(message)"
        if !path.isEmpty { text += " (at \(path))" }
        if let hint { text += "; \(hint)" }
        return text
    }

    /// This diagnostic with the line it points at from `texts` (sources by file name), unless
    /// it has one.
    package func attachingSourceLine(from texts: [String: String]) -> Diagnostic {
        guard sourceLine == nil, let text = texts[location.file] else { return self }
        var attached = self
        attached.sourceLine = text.lineText(location.line)
        return attached
    }

    /// The one-line form followed by the offending source line and a caret under the column,
    /// for a terminal: control characters from the policy are escaped (`InertText`). The line
    /// is the one read at compile time (`sourceLine`), else `source`'s.
    public func rendered(source: String? = nil) -> String {
        let headline = InertText.escaped(description)
        guard let line = sourceLine ?? source?.lineText(location.line) else { return headline }
        // A long line is shown as a window around the column: a minified or hostile file's
        // 100 KB line helps no one.
        let characters = Array(line)
        let column = max(location.column - 1, 0)
        let start = characters.count > Self.shownLineWidth ? max(0, min(column - Self.shownLineWidth / 2, characters.count - Self.shownLineWidth)) : 0
        let end = min(characters.count, start + Self.shownLineWidth)
        let shown = (start > 0 ? "…" : "") + String(characters[start..<end]) + (end < characters.count ? "…" : "")
        let caret = String(repeating: " ", count: column - start + (start > 0 ? 1 : 0)) + "^"
        return "\(headline)\n  \(InertText.escaped(shown))\n  \(caret)"
    }
}

/// Every diagnostic of one load or compile, thrown when any of them is an error.
public struct PolicyDiagnostics: Error, Sendable, CustomStringConvertible {
    /// Every diagnostic, errors and warnings, in the order found.
    public private(set) var items: [Diagnostic] = []

    /// Diagnostics in the order found.
    public init(_ items: [Diagnostic] = []) {
        self.items = items
    }

    /// The errors.
    public var errors: [Diagnostic] { items.filter { $0.severity == .error } }
    /// The warnings.
    public var warnings: [Diagnostic] { items.filter { $0.severity == .warning } }
    /// Whether any is an error, which stops the compile.
    public var hasErrors: Bool { items.contains { $0.severity == .error } }

    /// These diagnostics with the lines they point at from `texts` (sources by file name).
    package func attachingSourceLines(from texts: [String: String]) -> PolicyDiagnostics {
        PolicyDiagnostics(items.map { $0.attachingSourceLine(from: texts) })
    }

    mutating func append(_ diagnostic: Diagnostic) {
        if !items.contains(diagnostic) { items.append(diagnostic) }
    }

    mutating func append(contentsOf other: PolicyDiagnostics) {
        for item in other.items { append(item) }
    }

    mutating func error(_ code: DiagnosticCode, _ message: String, at node: YAMLNode, hint: String? = nil) {
        append(Diagnostic(.error, code, message, at: node.location, path: node.path, hint: hint))
    }

    mutating func warning(_ code: DiagnosticCode, _ message: String, at node: YAMLNode, hint: String? = nil) {
        append(Diagnostic(.warning, code, message, at: node.location, path: node.path, hint: hint))
    }

    /// The diagnostics ordered by file, line and column.
    public var sorted: [Diagnostic] { items.sorted { $0.location < $1.location } }

    public var description: String { sorted.map(\.description).joined(separator: "\n") }
}

extension String {
    /// The text of a 1-based line, without its line break.
    func lineText(_ number: Int) -> String? {
        var current = 1
        for line in split(separator: "\n", omittingEmptySubsequences: false) {
            if current == number { return String(line.hasSuffix("\r") ? line.dropLast() : line) }
            current += 1
        }
        return nil
    }
}
