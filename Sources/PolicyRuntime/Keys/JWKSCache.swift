import Foundation
public import Logging
internal import Synchronization
@_spi(RuleAuthoring) public import PolicyJOSE

/// Remote key sets shared by every policy compiled with this cache: fetched once, served from
/// memory, refreshed ahead of expiry, and served stale while a provider is down.
///
/// Pass one cache to every compile in a process (`PolicyCompiler.keyCache`) so policies naming
/// the same source share its keys, its refetch limits and its fetches. A `kid` the cache holds
/// never waits on the network; evaluations that need a fetch wait on a single request, at most
/// the source's `max_wait`. Events go to `logger` (label
/// `policy-engine.keys`): each fetch at `info` with the running fetch count, each failure at
/// `warning` with the failure count and the age of the set still being served.
public final class JWKSCache: Sendable {
    private let entries = Mutex<[RemoteKeySource: KeyCacheEntry]>([:])
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// The cache `Policy.load` compiles with unless given another: one a process, so that
    /// policies naming the same source share its keys and its fetches without the caller
    /// arranging it. Pass a cache of your own for another logger or clock, or to keep a
    /// policy's keys apart.
    public static let shared = JWKSCache()

    /// `now` is the cache's clock (wall time by default): TTLs and refetch limits are measured
    /// with it, never with an evaluation's `now`, which may be a log record's time.
    public init(logger: Logger = Logger(label: "policy-engine.keys"), now: @escaping @Sendable () -> UnixTime = { .now }) {
        self.logger = logger
        self.now = { now().date }
    }

    /// The keys for a token with `kid`. A `kid` the cache holds (fresh, or stale within
    /// `stale_if_error`) is answered at once, whatever fetch is under way; a set near or past the
    /// end of its TTL is refreshed in the background. A fetch is waited for only when the cache
    /// cannot answer (no set yet, an unknown `kid` the refetch limit allows asking about), and at
    /// most `max_wait`, or to its end with `untilFetched` (a prefetch at start-up). Never throws:
    /// a source that cannot supply keys yields `.unavailable`.
    package func resolve(_ source: RemoteKeySource, kid: String?, untilFetched: Bool = false) async -> KeyResolution {
        var settled = false
        while true {
            switch step(source, kid: kid, settled: settled, waits: true) {
            case let .serve(keys): return .available(keys)
            case let .fail(error): return .unavailable(error)
            case let .wait(task):
                if untilFetched { await task.value } else { await Self.wait(for: task, atMost: source.maxWait) }
                settled = true
            case .fetch:
                preconditionFailure("step starts fetches itself")
            }
        }
    }

    /// Waits until `task` ends or `bound` passes, whichever is first; the fetch goes on either way.
    private static func wait(for task: Task<Void, Never>, atMost bound: Duration) async {
        let waiter = Waiter()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiter.set(continuation)
            let timer = Task {
                try? await Task.sleep(for: bound)
                waiter.resume()
            }
            Task {
                await task.value
                timer.cancel()
                waiter.resume()
            }
        }
    }

    /// A continuation resumed once, by whichever of the fetch and the timer ends first.
    private final class Waiter: Sendable {
        private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)

        func set(_ waiting: CheckedContinuation<Void, Never>) {
            continuation.withLock { $0 = waiting }
        }

        func resume() {
            continuation.withLock { $0.take() }?.resume()
        }
    }

    /// Keeps the sources `sources()` names fetched until the task is cancelled, without waiting
    /// for a call to need them: a source never fetched is fetched at once, one whose fetch failed
    /// is tried again after `KeyRetryBackoff`'s delay (1 s doubling to 30 s, jittered), and a set
    /// in hand is refreshed at 80% of its `cache_ttl`, no sooner than `min_refresh_interval` after
    /// the last attempt.
    ///
    /// A server runs this beside its listener so that readiness recovers by itself when a
    /// provider that was down comes back, and so that a set never ages past `stale_if_error`
    /// merely because no traffic asked for it. `sources` is read again on every pass (at least
    /// once a second), so a reload that names new sources is followed.
    public func keepFetched(_ sources: @escaping @Sendable () -> [RemoteKeySource]) async {
        while !Task.isCancelled {
            let now = now()
            var nextPass: TimeInterval = 1
            for source in Set(sources()) {
                let due: TimeInterval? = entries.withLock { entries in
                    var entry = entries[source] ?? KeyCacheEntry()
                    guard let due = entry.backgroundFetchDue(now: now, source: source) else { return nil }
                    if due <= 0 {
                        _ = startFetch(source, in: &entry, at: now)
                        entries[source] = entry
                    }
                    return due
                }
                if let due, due > 0 { nextPass = min(nextPass, due) }
            }
            try? await Task.sleep(for: .seconds(max(nextPass, 0.05)))
        }
    }

    /// The keys for `kid` if they can be had without waiting for a fetch, else nil. A fetch the
    /// answer needed is started in the background, so a later call may succeed.
    package func cachedResolution(_ source: RemoteKeySource, kid: String?) -> KeyResolution? {
        switch step(source, kid: kid, settled: false, waits: false) {
        case let .serve(keys): .available(keys)
        case let .fail(error): .unavailable(error)
        case .wait, .fetch: nil
        }
    }

    /// Counts and times for one source, for health checks and dashboards.
    public func statistics(for source: RemoteKeySource) -> KeyCacheStatistics {
        entries.withLock { KeyCacheStatistics($0[source] ?? KeyCacheEntry()) }
    }

    /// Counts and times for every source the cache has been asked for, for metrics.
    public func statistics() -> [RemoteKeySource: KeyCacheStatistics] {
        entries.withLock { $0.mapValues(KeyCacheStatistics.init) }
    }

    /// Decides under the lock and, when the decision is to fetch, starts the one fetch and
    /// returns it as something to wait on.
    private func step(_ source: RemoteKeySource, kid: String?, settled: Bool, waits: Bool) -> KeyCacheEntry.Decision {
        let now = now()
        return entries.withLock { entries in
            var entry = entries[source] ?? KeyCacheEntry()
            defer { entries[source] = entry }
            let decision = entry.decide(kid: kid, now: now, settled: settled, source: source)
            entry.count(decision, afterFetch: settled, waits: waits)
            switch decision {
            case .fetch:
                let task = startFetch(source, in: &entry, at: now)
                return .wait(task)
            case .serve where entry.wantsRefresh(now: now, source: source):
                _ = startFetch(source, in: &entry, at: now)
                return decision
            default:
                return decision
            }
        }
    }

    private func startFetch(_ source: RemoteKeySource, in entry: inout KeyCacheEntry, at now: Date) -> Task<Void, Never> {
        entry.lastAttempt = now
        let task = Task { await self.fetch(source) }
        entry.inFlight = task
        return task
    }

    private func fetch(_ source: RemoteKeySource) async {
        let started = ContinuousClock.now
        let result: Result<JWKSet, KeyFetchError>
        do { result = .success(try await source.fetchKeys()) } catch { result = .failure(error) }
        let finished = now()
        let (entry, previous) = entries.withLock { entries in
            var entry = entries[source] ?? KeyCacheEntry()
            entry.inFlight = nil
            let previous = (failures: entry.consecutiveFailures, failure: entry.lastFailure)
            switch result {
            case let .success(keys):
                entry.snapshot = ResolvedKeys(keys: keys, fetchedAt: finished, freshness: .fresh)
                entry.lastFailure = nil
                entry.consecutiveFailures = 0
                entry.retryAt = nil
                entry.fetches += 1
            case let .failure(error):
                entry.lastFailure = error
                entry.failures += 1
                entry.consecutiveFailures += 1
                let delay = KeyRetryBackoff.delay(afterFailures: entry.consecutiveFailures, source: source, jitter: Double.random(in: 0...1))
                entry.retryAt = finished.addingTimeInterval(delay)
            }
            entries[source] = entry
            return (entry, previous)
        }
        let milliseconds = Int(((ContinuousClock.now - started).seconds * 1000).rounded())
        switch result {
        case let .success(keys):
            var metadata: Logger.Metadata = [
                "source": "\(source)", "keys": "\(keys.keys.count)", "skipped": "\(keys.skipped.count)",
                "fetches": "\(entry.fetches)", "duration_ms": "\(milliseconds)",
            ]
            if previous.failures > 0 { metadata["after_failures"] = "\(previous.failures)" }
            logger.info("fetched key set", metadata: metadata)
        case let .failure(error):
            var metadata: Logger.Metadata = [
                "source": "\(source)", "code": "\(error.code.rawValue)", "error": "\(error.message)",
                "failures": "\(entry.failures)", "duration_ms": "\(milliseconds)",
            ]
            if let fetchedAt = entry.snapshot?.fetchedAt {
                metadata["cache_age_s"] = "\(Int(finished.timeIntervalSince(fetchedAt)))"
                metadata["stale_until"] = "\(fetchedAt.addingTimeInterval(source.cacheTTL.seconds + source.staleIfError.seconds))"
            }
            metadata["retry_in_s"] = "\(Int(entry.retryAt.map { $0.timeIntervalSince(finished) }?.rounded(.up) ?? 0))"
            // Once per change of state: the first failure, or a different one. A provider down
            // for an hour is retried about 120 times, and each is not news.
            let news = previous.failures == 0 || previous.failure?.code != error.code || previous.failure?.message != error.message
            logger.log(level: news ? .warning : .debug, "key set fetch failed", metadata: metadata)
        }
    }
}

/// How a remote source has fared in one cache.
public struct KeyCacheStatistics: Sendable, Equatable {
    /// Successful fetches.
    public let fetches: Int
    /// Failed fetches.
    public let failures: Int
    /// Lookups answered from memory, without waiting for a fetch.
    public let hits: Int
    /// Lookups that waited for a fetch.
    public let misses: Int
    /// Lookups answered with a set past its TTL while the provider could not be reached.
    public let staleServes: Int
    /// When the set being served was fetched.
    public let fetchedAt: UnixTime?
    /// The failure of the last fetch, if it failed.
    public let lastFailure: KeyFetchError?

    init(_ entry: KeyCacheEntry) {
        fetches = entry.fetches
        failures = entry.failures
        hits = entry.hits
        misses = entry.misses
        staleServes = entry.staleServes
        fetchedAt = entry.snapshot?.fetchedAt.map(UnixTime.init)
        lastFailure = entry.lastFailure
    }

    /// The age of the set being served at `now`.
    public func age(at now: UnixTime = .now) -> Duration? {
        fetchedAt.map { now.duration(since: $0) }
    }
}
