internal import Synchronization
@_spi(RuleAuthoring) internal import PolicyJOSE

/// One-time values remembered in this process until they expire: the default store, right for
/// one server or the command line. Several servers behind one load balancer need a store they
/// share (PostgreSQL), or a value used at one would be new at another.
///
/// Bounded: it holds at most `capacity` unexpired values. Expired ones are swept when the table
/// has doubled since the last sweep, so a sweep's cost is spread over the insertions before it.
/// A full table is never made room in by forgetting an unexpired value, which would let it be
/// used again: recording then fails, and the request is refused as undecided until values expire.
public final class MemoryReplayStore: ReplayStore {
    private struct State {
        var expiries: [ContentDigest: Double] = [:]
        var sweepAt = 1024
        /// When a sweep last found the table full of unexpired values: the next waits a second.
        var fullSince: Double?
    }

    /// The most unexpired values held.
    public let capacity: Int
    private let state = Mutex(State())

    /// The store every evaluation uses unless given another: values used once anywhere in the
    /// process stay used, whichever policy or thread saw them.
    public static let shared = MemoryReplayStore()

    /// A store of at most `capacity` unexpired values (default 1,000,000, about 100 MB when full).
    public init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
    }

    /// The number of values held, expired ones not yet swept included.
    public var count: Int { state.withLock { $0.expiries.count } }

    /// Records each of `values` until it expires unless held already; never suspends.
    public func record(_ values: [OneTimeValue], now: UnixTime) async throws(ReplayStoreError) -> [Bool] {
        try recordNow(values, now: now)!.get()
    }

    /// Records each of `values` at once: a memory store always answers.
    public func recordNow(_ values: [OneTimeValue], now: UnixTime) -> Result<[Bool], ReplayStoreError>? {
        let capacity = self.capacity
        return state.withLock { state in
            var fresh: [Bool] = []
            fresh.reserveCapacity(values.count)
            for value in values {
                if let expiry = state.expiries[value.digest], expiry > now.seconds {
                    fresh.append(false)
                    continue
                }
                if state.expiries.count >= min(state.sweepAt, capacity) {
                    Self.sweep(&state, now: now.seconds, capacity: capacity)
                    if state.expiries.count >= capacity {
                        return .failure(ReplayStoreError("the in-memory replay store holds its limit of \(capacity) unexpired values"))
                    }
                }
                state.expiries[value.digest] = value.expires.seconds
                fresh.append(true)
            }
            return .success(fresh)
        }
    }

    private static func sweep(_ state: inout State, now: Double, capacity: Int) {
        if let since = state.fullSince, now < since + 1, state.expiries.count >= capacity { return }
        state.expiries = state.expiries.filter { $0.value > now }
        state.sweepAt = max(1024, state.expiries.count * 2)
        state.fullSince = state.expiries.count >= capacity ? now : nil
    }
}
