internal import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// `# lint: ignore=CODE[,CODE...]` comments: a warning of a listed code is not reported when the
/// comment stands on the warning's line or the line above. Errors are never silenced.
///
/// The comment is the "note" a reviewer reads: write why beside it
/// (`# lint: ignore=audience_missing (a discovery document has no audience)`).
struct LintSuppression {
    static let marker = "# lint: ignore="

    /// Source lines by file, as the compile read them.
    private let lines: [String: [Substring]]

    /// `texts` holds every source the compile read, by display name.
    init(texts: [String: String]) {
        lines = texts.mapValues { $0.split(separator: "\n", omittingEmptySubsequences: false) }
    }

    /// The warnings of `diagnostics` no comment silences.
    func unsilenced(_ warnings: [Diagnostic]) -> [Diagnostic] {
        warnings.filter { !isSilenced($0) }
    }

    private func isSilenced(_ warning: Diagnostic) -> Bool {
        let source = lines[warning.location.file] ?? []
        for number in [warning.location.line, warning.location.line - 1] where number >= 1 && number <= source.count {
            guard let range = source[number - 1].range(of: Self.marker) else { continue }
            let codes = source[number - 1][range.upperBound...].prefix { !$0.isWhitespace }.split(separator: ",")
            if codes.contains(where: { $0 == warning.code.rawValue }) { return true }
        }
        return false
    }
}
