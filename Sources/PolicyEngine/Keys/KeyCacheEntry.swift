internal import Foundation

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
        /// Start a fetch (the caller records it as `inFlight`), then decide again.
        case fetch
        /// Wait for the fetch under way, then decide again.
        case wait(Task<Void, Never>)
        /// No keys can be served.
        case fail(KeyFetchError)
    }

    /// The share of `cache_ttl` after which a use refreshes the set in the background.
    static let refreshAheadFraction = 0.8

    /// Decides for a token with `kid` at `now`. `fetched` is true once this caller has waited for
    /// a fetch: it then takes whatever the cache holds instead of asking again.
    func decide(kid: String?, now: Date, fetched: Bool, source: RemoteKeySource) -> Decision {
        if let inFlight, !fetched { return .wait(inFlight) }
        let mayFetch = !fetched && lastAttempt.map { now.timeIntervalSince($0) >= source.minRefreshInterval.seconds } ?? true
        guard let snapshot else {
            if mayFetch { return .fetch }
            return .fail(lastFailure ?? KeyFetchError(.transport, "\(source) has not been fetched"))
        }
        let age = now.timeIntervalSince(snapshot.fetchedAt ?? now)
        if age < source.cacheTTL.seconds {
            // A kid the set does not know may be a key the provider has just rotated in.
            if !snapshot.knows(kid: kid), mayFetch { return .fetch }
            return .serve(snapshot)
        }
        if mayFetch { return .fetch }
        guard age < source.cacheTTL.seconds + source.staleIfError.seconds else {
            let reason = lastFailure.map { " (last error: \($0.message))" } ?? ""
            return .fail(KeyFetchError(lastFailure?.code ?? .transport,
                                       "\(source) has failed past stale_if_error; its last good key set is \(Int(age)) s old\(reason)"))
        }
        return .serve(ResolvedKeys(keys: snapshot.keys, fetchedAt: snapshot.fetchedAt, freshness: .stale))
    }

    /// Whether a use at `now` should start a background refresh: the set is near the end of its
    /// TTL, nothing is under way, and the refetch spacing allows it.
    func wantsRefreshAhead(now: Date, source: RemoteKeySource) -> Bool {
        guard inFlight == nil, let fetchedAt = snapshot?.fetchedAt else { return false }
        let age = now.timeIntervalSince(fetchedAt)
        let spaced = lastAttempt.map { now.timeIntervalSince($0) >= source.minRefreshInterval.seconds } ?? true
        return spaced && age >= source.cacheTTL.seconds * Self.refreshAheadFraction && age < source.cacheTTL.seconds
    }
}
