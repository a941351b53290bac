@_spi(RuleAuthoring) public import PolicyJOSE

/// A caller mistake that stops an evaluation before it starts.
public typealias EvaluationError = CodedError<EvaluationFailure>

/// The caller mistakes that stop an evaluation before it starts.
public enum EvaluationFailure: ErrorDomain {}

extension CodedError.Code where Domain == EvaluationFailure {
    /// An input the policy requires was not given.
    public static var missingInput: Self { Self("missing_input") }
    /// An input was given that the policy does not declare.
    public static var unknownInput: Self { Self("unknown_input") }
    /// The synchronous `evaluate` needs a remote key set that is not in the cache.
    public static var keysNotCached: Self { Self("keys_not_cached") }
    /// The synchronous `evaluate` would have to wait for a replay store that cannot answer at once.
    public static var replayStoreAsync: Self { Self("replay_store_async") }
    /// A section's subject (token, request, callback) was not given.
    public static var missingSubject: Self { Self("missing_subject") }
    /// A subject was given that no section of the policy checks.
    public static var unexpectedSubject: Self { Self("unexpected_subject") }
}
