public import Foundation

/// Whether the keys behind a verdict were current.
public enum KeyFreshness: String, Sendable, Codable, Comparable {
    /// Loaded from the policy, or fetched within the source's `cache_ttl`.
    case fresh
    /// Past `cache_ttl` and served because refreshing failed (within `stale_if_error`).
    case stale
    /// The source could not supply a key set at all.
    case unavailable

    /// Worse is greater, so the worst freshness of several sets is their `max()`.
    public static func < (lhs: KeyFreshness, rhs: KeyFreshness) -> Bool {
        let order: [KeyFreshness] = [.fresh, .stale, .unavailable]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}

/// A key set as one evaluation sees it: the keys, when they were fetched, and whether they are current.
public struct ResolvedKeys: Sendable {
    public let keys: JWKSet
    /// When the set was fetched; nil for keys written in or beside the policy.
    public let fetchedAt: Date?
    public let freshness: KeyFreshness

    public init(keys: JWKSet, fetchedAt: Date?, freshness: KeyFreshness) {
        self.keys = keys
        self.fetchedAt = fetchedAt
        self.freshness = freshness
    }

    /// Whether `kid` can select a key: true without a kid, or when no key of the set has one.
    func knows(kid: String?) -> Bool {
        guard let kid, keys.selectsByKid else { return true }
        return keys.keys.contains { $0.kid == kid }
    }
}

/// Which exact key set judged a signature: its source, and for a fetched set when it was
/// fetched, so a rotated set is a different one. Remembered signature checks are keyed by it.
public struct KeySetIdentity: Sendable, Hashable {
    public let source: String
    public let fetchedAt: Date?

    public init(source: String, fetchedAt: Date? = nil) {
        self.source = source
        self.fetchedAt = fetchedAt
    }
}

/// What a remote source supplied for one evaluation: keys, or why there are none.
public enum KeyResolution: Sendable {
    case available(ResolvedKeys)
    case unavailable(KeyFetchError)

    public var freshness: KeyFreshness {
        switch self {
        case let .available(resolved): resolved.freshness
        case .unavailable: .unavailable
        }
    }
}
