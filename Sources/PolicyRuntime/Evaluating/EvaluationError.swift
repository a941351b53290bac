/// A caller mistake that stops an evaluation before it starts.
public struct EvaluationError: Error, Sendable, CustomStringConvertible {
    /// The stable kind of a caller mistake.
    public enum Code: String, Sendable {
        case missingInput = "missing_input"
        case unknownInput = "unknown_input"
        /// The synchronous `evaluate` needs a remote key set that is not in the cache.
        case keysNotCached = "keys_not_cached"
        /// A section's subject (token, request, callback) was not given.
        case missingSubject = "missing_subject"
        /// A subject was given that no section of the policy checks.
        case unexpectedSubject = "unexpected_subject"
    }

    /// The stable kind of mistake.
    public let code: Code
    /// What to fix.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, as a user reads it.
    public var description: String { message }
}
