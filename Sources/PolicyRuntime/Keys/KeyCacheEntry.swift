internal import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// One remote source's state in a `JWKSCache`, and the rules for when it may be fetched again.
///
/// Kept apart from the cache's locking and tasks so the policy — TTL, refetch limits, stale
/// serving, refresh ahead — reads as one function of the state and the time.
struct KeyCacheEntry {
    /// The last set fetched successfully.
    var snapshot: ResolvedKeys?
    /// The fetch under way, which every concurrent caller awaits instead of starting its own.
    var inFlight: Task<Void, Never>?
    /// When the last fetch started, successful or not; refetches are spaced from it.
    var lastAttempt: Date?
    /// The last fetch's failure, cleared by a success.
    var lastFailure: KeyFetchError?
    /// Failed fetches since the last success: the retry backoff's exponent.
    var consecutiveFailures = 0
    /// When `JWKSCache.keepFetched` may try again after a failure (`KeyRetryBackoff`).
    var retryAt: Date?
    var fetches = 0
    var failures = 0
    /// Lookups answered from memory, without waiting for a fetch.
    var hits = 0
    /// Lookups that had to wait for a fetch.
    var misses = 0
    /// Lookups answered with a set past its TTL because the provider could not be reached.
    var staleServes = 0

    /// Counts a decision: a hit or a miss when it is a lookup's first (`afterFetch` false), and
    /// a stale set served either way. A lookup that will not wait (`waits` false) is no miss:
    /// its caller asks again, by waiting or later, and that lookup counts.
    mutating func count(_ decision: Decision, afterFetch: Bool, waits: Bool) {
        switch decision {
        case let .serve(keys):
            if !afterFetch { hits += 1 }
            if keys.freshness == .stale { staleServes += 1 }
        case .fetch, .wait:
            if !afterFetch, waits { misses += 1 }
        case .fail: break
        }
    }

    /// What a caller should do.
    enum Decision {
        /// Use these keys now.
        case serve(ResolvedKeys)
        /// Start a fetch (the caller records it as `inFlight`), then wait for it, at most `max_wait`.
        case fetch
        /// Wait for the fetch under way, at most `max_wait`, then decide again, settled.
        case wait(Task<Void, Never>)
        /// No keys can be served.
        case fail(KeyFetchError)
    }

    /// The share of `cache_ttl` after which a use refreshes the set in the background.
    static let refreshAheadFraction = 0.8

    /// Decides for a token with `kid` at `now`. `settled` is true once this caller has waited
    /// for a fetch (to its end, or to `max_wait`): it then takes whatever the cache holds.
    ///
    /// A `kid` the set knows is served at once, whatever fetch is under way: fresh within
    /// `cache_ttl`, stale within `stale_if_error` after it (`step` then refreshes the set in the
    /// background). Only what the cache cannot answer waits: an unknown `kid` (a key the
    /// provider may have just rotated in), no set yet, or a set past `stale_if_error`.
    func decide(kid: String?, now: Date, settled: Bool, source: RemoteKeySource) -> Decision {
        let spaced = lastAttempt.map { now.timeIntervalSince($0) >= source.minRefreshInterval.seconds } ?? true
        func needFetch() -> Decision? {
            guard !settled else { return nil }
            if let inFlight { return .wait(inFlight) }
            return spaced ? .fetch : nil
        }
        guard let snapshot else {
            if let decision = needFetch() { return decision }
            if inFlight != nil {
                return .fail(KeyFetchError(.timeout, "\(source) is still answering after max_wait (\(source.maxWaitText)); the fetch goes on"))
            }
            return .fail(lastFailure ?? KeyFetchError(.transport, "\(source) has not been fetched"))
        }
        let age = now.timeIntervalSince(snapshot.fetchedAt ?? now)
        let fresh = age < source.cacheTTL.seconds
        guard age < source.cacheTTL.seconds + source.staleIfError.seconds else {
            if let decision = needFetch() { return decision }
            let reason = lastFailure.map { " (last error: \($0.message))" } ?? ""
            return .fail(KeyFetchError(lastFailure?.code ?? .transport,
                                       "\(source) has failed past stale_if_error; its last good key set is \(Int(age)) s old\(reason)"))
        }
        if !snapshot.knows(kid: kid), let decision = needFetch() { return decision }
        return .serve(ResolvedKeys(keys: snapshot.keys, fetchedAt: snapshot.fetchedAt, freshness: fresh ? .fresh : .stale,
                                   refetchProblem: snapshot.knows(kid: kid) ? nil : refetchProblem(source, now: now, refetched: settled)))
    }

    /// Why the set a caller with an unknown `kid` is served holds nothing newer: a fetch still
    /// under way, a failing source, or the refetch spacing (nil when this caller's refetch ran
    /// and brought no such key).
    private func refetchProblem(_ source: RemoteKeySource, now: Date, refetched: Bool) -> String? {
        if inFlight != nil { return "the key source is still answering after max_wait (\(source.maxWaitText))" }
        if let lastFailure { return "key source unavailable: \(lastFailure.code.rawValue)" }
        guard !refetched, let lastAttempt else { return nil }
        let wait = Int((source.minRefreshInterval.seconds - now.timeIntervalSince(lastAttempt)).rounded(.up))
        guard wait > 0 else { return nil }
        return "not refetched: min_refresh_interval (\(Int(source.minRefreshInterval.seconds)) s) allows the next refetch in \(wait) s"
    }

    /// Whether a use at `now` should start a background refresh: the set is past 80% of its TTL
    /// (or past it, served stale), nothing is under way, and the refetch spacing allows it.
    func wantsRefresh(now: Date, source: RemoteKeySource) -> Bool {
        guard inFlight == nil, let fetchedAt = snapshot?.fetchedAt else { return false }
        let spaced = lastAttempt.map { now.timeIntervalSince($0) >= source.minRefreshInterval.seconds } ?? true
        return spaced && now.timeIntervalSince(fetchedAt) >= source.cacheTTL.seconds * Self.refreshAheadFraction
    }

    /// Seconds until `JWKSCache.keepFetched` should fetch the set at `now` (zero or less: at
    /// once), or nil while a fetch is under way. A set never fetched is due at once; after a
    /// failure, at `retryAt`; a set in hand, at 80% of its TTL, spaced by `min_refresh_interval`
    /// from the last attempt, so a server without traffic keeps a fresh set.
    func backgroundFetchDue(now: Date, source: RemoteKeySource) -> TimeInterval? {
        guard inFlight == nil else { return nil }
        if lastFailure != nil, let retryAt { return retryAt.timeIntervalSince(now) }
        guard let fetchedAt = snapshot?.fetchedAt else { return 0 }
        let refreshAt = fetchedAt.addingTimeInterval(source.cacheTTL.seconds * Self.refreshAheadFraction)
        let spacedAt = lastAttempt.map { $0.addingTimeInterval(source.minRefreshInterval.seconds) } ?? refreshAt
        return max(refreshAt, spacedAt).timeIntervalSince(now)
    }
}
