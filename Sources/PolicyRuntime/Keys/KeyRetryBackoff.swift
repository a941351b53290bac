internal import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// How long a source whose fetch failed waits before `JWKSCache.keepFetched` tries it again:
/// 1 s after the first failure, doubling with each further one, at most 30 s (or the source's
/// `min_refresh_interval`, when shorter), each delay jittered down by up to half.
///
/// Bounded so that a provider that was down when the server started is asked again within half
/// a minute of its return, and readiness follows without a request or a signal; jittered so
/// that a fleet restarted together does not retry in step.
struct KeyRetryBackoff {
    /// The first delay.
    static let initial: TimeInterval = 1
    /// The longest delay.
    static let ceiling: TimeInterval = 30

    /// The delay after `failures` consecutive failures (1 or more) of `source`, with `jitter`
    /// from 0 to 1 taking off up to half of it.
    static func delay(afterFailures failures: Int, source: RemoteKeySource, jitter: Double) -> TimeInterval {
        let bound = min(ceiling, max(initial, source.minRefreshInterval.seconds))
        let full = min(bound, initial * pow(2, Double(min(max(failures, 1) - 1, 16))))
        return full * (1 - 0.5 * min(max(jitter, 0), 1))
    }
}
