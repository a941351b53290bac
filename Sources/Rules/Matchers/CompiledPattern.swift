internal import Foundation

/// A regular expression compiled once at policy compile time, matched against whole strings.
struct CompiledPattern: @unchecked Sendable {
    // NSRegularExpression is immutable and documented as safe to share between threads.
    private let expression: NSRegularExpression
    let source: String

    init?(_ source: String) {
        guard let expression = try? NSRegularExpression(pattern: source) else { return nil }
        self.expression = expression
        self.source = source
    }

    func wholeMatches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = expression.firstMatch(in: text, options: [.anchored], range: range) else { return false }
        return match.range == range
    }
}
