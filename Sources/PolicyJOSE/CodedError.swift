/// An error of the engine as a program reads it: a stable code to switch on, count or log, and
/// a message a person can act on. `catch let error as any EngineError` reads every kind.
public protocol EngineError: Error, Sendable, CustomStringConvertible {
    /// The stable snake_case identifier of what went wrong (`keys_not_cached`, `timeout`).
    var codeName: String { get }
    /// What went wrong and, where it is not obvious, what to do.
    var message: String { get }
}

/// The kinds of error the engine has: each names its own codes (`KeyFetchFailure`).
public protocol ErrorDomain: Sendable {}

/// One error type for every domain (`EvaluationError` is `CodedError<EvaluationFailure>`), as
/// jwt-kit's `JWTError` carries an `ErrorType`.
///
/// Codes are open values, not a closed enum: a code added later breaks no caller's `switch`, and
/// the codes of a domain are declared beside the code that throws them.
public struct CodedError<Domain: ErrorDomain>: EngineError, Hashable {
    /// A stable code of the domain; the domain declares its codes as static members.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The snake_case identifier, as logs and JSON carry it.
        public let rawValue: String

        /// The code `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code `rawValue`, as a domain declares one.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code as messages and JSON write it.
        public var description: String { rawValue }
    }

    /// What kind of failure it is.
    public let code: Code
    /// What went wrong, for a person.
    public let message: String

    /// A failure of `code`, explained by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code`, as text.
    public var codeName: String { code.rawValue }

    /// `code: message`, for logs.
    public var description: String { "\(code.rawValue): \(message)" }
}
