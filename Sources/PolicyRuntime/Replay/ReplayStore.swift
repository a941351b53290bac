/// Where one-time values are remembered until they expire: in this process
/// (`MemoryReplayStore`), or in a database several servers share, so a value used at one is
/// refused at every other.
///
/// Recording is one atomic insert-if-absent per value: two requests racing with the same value,
/// at one server or two, cannot both find it new.
public protocol ReplayStore: Sendable {
    /// Records each of `values` until it expires, unless the store holds it already.
    ///
    /// - Parameter now: The evaluation's time: values that expired by then are forgotten.
    /// - Returns: For each value, in order, whether it was new (false: it was used before).
    /// - Throws: `ReplayStoreError` when the store cannot say: the evaluation then refuses the
    ///   request as undecided, never lets it through.
    func record(_ values: [OneTimeValue], now: UnixTime) async throws(ReplayStoreError) -> [Bool]

    /// `record` without suspending, for a store that can answer at once (in memory); nil for one
    /// that must wait (a database), which `Policy.evaluateNow` cannot use.
    func recordNow(_ values: [OneTimeValue], now: UnixTime) -> Result<[Bool], ReplayStoreError>?
}

extension ReplayStore {
    /// By default a store must be waited for.
    public func recordNow(_ values: [OneTimeValue], now: UnixTime) -> Result<[Bool], ReplayStoreError>? { nil }
}

/// Why a replay store could not record a value.
public struct ReplayStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for a finding and an operator: never a value itself.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
