@_spi(RuleAuthoring) import PolicyJOSE

/// Whether the keys behind a verdict were current.
public enum KeyFreshness: String, Sendable, Codable, Comparable {
    /// Loaded from the policy, or fetched within the source's `cache_ttl`.
    case fresh
    /// Past `cache_ttl`, served while a refresh runs in the background or because refreshing
    /// failed (within `stale_if_error`).
    case stale
    /// The source could not supply a key set at all.
    case unavailable

    /// Worse is greater, so the worst freshness of several sets is their `max()`.
    public static func < (lhs: KeyFreshness, rhs: KeyFreshness) -> Bool {
        let order: [KeyFreshness] = [.fresh, .stale, .unavailable]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}
