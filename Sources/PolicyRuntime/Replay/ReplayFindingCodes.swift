@_spi(RuleAuthoring) import PolicyJOSE

/// The finding code of one-time values the engine records.
extension FindingCode {
    /// The replay store could not record a one-time value (unreachable, full, or none given):
    /// the request is refused, as it cannot be told whether the value was used before.
    public static let replayStoreUnavailable = FindingCode("replay_store_unavailable", .undecided)

    /// Every code of one-time values the engine reports itself.
    public static let replayCodes: [FindingCode] = [.replayStoreUnavailable]
}
