internal import PolicyCrypto
package import Foundation
@_spi(RuleAuthoring) package import PolicyJOSE

/// A key set as one evaluation sees it: the keys, when they were fetched, and whether they are current.
package struct ResolvedKeys: Sendable {
    /// The key set.
    package let keys: JWKSet
    /// When the set was fetched; nil for keys written in or beside the policy.
    package let fetchedAt: Date?
    /// Whether the set is within its TTL, or served stale during an outage.
    package let freshness: KeyFreshness
    /// Why a refetch this evaluation asked for (an unknown `kid`) brought nothing new: the key
    /// source still answering after `max_wait`, or failing. A `kid_unknown` finding says so.
    package let refetchProblem: String?

    /// Keys as resolved for one evaluation; `fetchedAt` is nil for local keys.
    package init(keys: JWKSet, fetchedAt: Date?, freshness: KeyFreshness, refetchProblem: String? = nil) {
        self.keys = keys
        self.fetchedAt = fetchedAt
        self.freshness = freshness
        self.refetchProblem = refetchProblem
    }

    /// Whether `kid` can select a key: true without a kid, or when no key of the set has one.
    func knows(kid: String?) -> Bool {
        guard let kid, keys.selectsByKid else { return true }
        return keys.keys.contains { $0.kid?.isExactly(kid) == true }
    }
}

/// What a remote source supplied for one evaluation: keys, or why there are none.
package enum KeyResolution: Sendable {
    case available(ResolvedKeys)
    case unavailable(KeyFetchError)

    /// How current the keys behind this resolution are (`unavailable` when there are none).
    package var freshness: KeyFreshness {
        switch self {
        case let .available(resolved): resolved.freshness
        case .unavailable: .unavailable
        }
    }
}
