internal import PolicyCrypto
package import Foundation

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

/// Which exact keys judged a signature, by content: a SHA-256 over every key's RFC 7638 members
/// and the parameters that restrict it (`kid`, `use`, `key_ops`, `alg`), in set order.
///
/// Remembered signature checks are keyed by it. Two sets written alike (two inline sets, two
/// tenants' sources) but holding different keys are different identities; a refetched set
/// with the same keys is the same one, since it gives the same answers. Never a label.
package struct KeySetIdentity: Sendable, Hashable {
    private let digest: ContentDigest

    /// The identity of `keys`, in their order (which decides the order candidates are tried).
    package init(keys: [JWK]) throws(JOSEError) {
        var bytes: [UInt8] = []
        func field(_ part: some Collection<UInt8>) {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { bytes += $0 }
            bytes += part
        }
        for key in keys {
            field(JSONValue.object(try key.requiredMembers()).serializedBytes())
            for restriction in [key.kid, key.use, key.algorithm, key.keyOperations?.joined(separator: ",")] {
                // A leading byte tells an absent parameter from an empty one.
                field(restriction.map { [1] + Array($0.utf8) } ?? [0])
            }
        }
        digest = ContentDigest(of: bytes)
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
