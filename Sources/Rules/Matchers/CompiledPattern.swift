internal import CRE2

/// A regular expression compiled once at policy compile time, matched against whole strings in
/// time linear in the string, whatever the pattern (RE2).
///
/// Backtracking engines (ICU's, behind NSRegularExpression) take exponential time on patterns
/// such as `(a+)+b`, and claim rules run before the signature is checked: an unsigned token could
/// spend seconds per claim. RE2 has no backtracking; what it cannot run in linear time
/// (backreferences, lookaround) it refuses to compile, which is a compile error of the policy.
package final class CompiledPattern: @unchecked Sendable {
    // Unchecked: the RE2 object is immutable after compilation and documented as thread-safe.
    private let regex: OpaquePointer
    /// The pattern as written.
    package let source: String

    /// The most memory one compiled pattern may take (RE2's `max_mem`): large enough for any
    /// pattern a policy needs, small enough that a hostile policy cannot exhaust memory.
    static let maxMemory: Int64 = 8 << 20
    /// The longest pattern accepted, in bytes.
    static let maxSourceBytes = 4096

    /// Why a pattern was refused.
    package struct Refusal: Error {
        /// RE2's reason, or the size limit exceeded.
        package let message: String
    }

    private init(regex: OpaquePointer, source: String) {
        self.regex = regex
        self.source = source
    }

    deinit { cre2_free(regex) }

    /// Compiles `source`, or says why RE2 refused it.
    package static func compile(_ source: String) -> Result<CompiledPattern, Refusal> {
        guard source.utf8.count <= maxSourceBytes else {
            return .failure(Refusal(message: "the pattern has \(source.utf8.count) bytes; at most \(maxSourceBytes) are accepted"))
        }
        var error = [CChar](repeating: 0, count: 256)
        let compiled = source.utf8CString.withUnsafeBufferPointer { pattern in
            cre2_compile(pattern.baseAddress, pattern.count - 1, maxMemory, &error, error.count)
        }
        guard let compiled else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(Refusal(message: reason.isEmpty ? "RE2 cannot compile it" : reason))
        }
        return .success(CompiledPattern(regex: compiled, source: source))
    }

    /// Whether the whole of `text` matches (anchored at both ends).
    package func wholeMatches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cre2_full_match(regex, $0.baseAddress, $0.count) == 1 }
        }
    }
}
