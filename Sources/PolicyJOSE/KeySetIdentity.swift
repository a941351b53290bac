internal import PolicyCrypto

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
