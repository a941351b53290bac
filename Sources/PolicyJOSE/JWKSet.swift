/// A JWK Set (RFC 7517 §5): the usable keys, and the ones that were left out and why.
///
/// A key with an unknown `kty` or broken material does not spoil its set — providers publish
/// keys for other consumers — but it is recorded in `skipped`. What makes a whole set ambiguous
/// is refused: two usable keys with the same `kid` and `use`, or secret keys (`oct`, private
/// keys) mixed with public ones.
package struct JWKSet: Sendable {
    /// A key that could not be used, with its position in `keys` of the document.
    package struct SkippedKey: Sendable {
        package let index: Int
        package let kid: String?
        package let error: JOSEError
    }

    /// The usable keys, in document order.
    package let keys: [JWK]
    /// The keys left out, with the reason for each.
    package let skipped: [SkippedKey]
    /// Whether any key has a `kid`, and so whether a token's `kid` selects among them. A set in
    /// which no key has one (a lone PEM key) makes no claim about kids: every key of the right
    /// family is tried.
    package let selectsByKid: Bool
    /// The set's identity by content, computed once: what remembered signature checks are keyed by.
    package let identity: KeySetIdentity

    /// Parses a JWK Set document from JSON text.
    package init(json bytes: some Collection<UInt8>, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        try self.init(object: JSONParser().parseObject(bytes, what: "a JWK Set"), options: options)
    }

    /// Parses a JWK Set object (`{"keys": [...]}`).
    package init(object: JSONObject, options: KeyLoadingOptions = .standard) throws(JOSEError) {
        guard let value = object["keys"] else { throw JOSEError(.keySetInvalid, "a JWK Set needs a 'keys' array") }
        guard case let .array(entries) = value else { throw JOSEError(.keySetInvalid, "'keys' must be an array, found \(value.typeName)") }
        // Every entry counts, usable or not: a broken twin still makes its kid ambiguous.
        try JWKSet.requireUniqueKids(entries.compactMap(\.objectValue).map { ($0["kid"]?.stringValue, $0["use"]?.stringValue) })
        var keys: [JWK] = []
        var skipped: [SkippedKey] = []
        for (index, entry) in entries.enumerated() {
            guard case let .object(member) = entry else {
                skipped.append(SkippedKey(index: index, kid: nil, error: JOSEError(.keyInvalid, "a key must be a JSON object")))
                continue
            }
            do {
                keys.append(try JWK(object: member, options: options))
            } catch {
                skipped.append(SkippedKey(index: index, kid: member["kid"]?.stringValue, error: error))
            }
        }
        try self.init(keys: keys, skipped: skipped)
    }

    /// Builds a set from loaded keys, applying the same consistency rules as a parsed set.
    package init(keys: [JWK]) throws(JOSEError) {
        try self.init(keys: keys, skipped: [])
    }

    private init(keys: [JWK], skipped: [SkippedKey]) throws(JOSEError) {
        try JWKSet.requireUniqueKids(keys.map { ($0.kid, $0.use) })
        let secret = keys.filter { $0.isPrivate }.count
        guard secret == 0 || secret == keys.count else {
            throw JOSEError(.keySetInvalid, "the set mixes secret or private keys with public keys; keep them in separate sets")
        }
        self.keys = keys
        self.skipped = skipped
        selectsByKid = keys.contains { $0.kid != nil }
        identity = try KeySetIdentity(keys: keys)
    }

    /// Refuses two keys with the same `kid` and `use`.
    private static func requireUniqueKids(_ identities: [(kid: String?, use: String?)]) throws(JOSEError) {
        var seen: Set<[UInt8]> = []
        for identity in identities {
            guard let kid = identity.kid else { continue }
            guard seen.insert(Array("\(kid)\u{0}\(identity.use ?? "")".utf8)).inserted else {
                throw JOSEError(.keySetInvalid, "two keys share kid '\(kid)'; a kid must pick exactly one key")
            }
        }
    }

    /// The keys that could verify `algorithm`, narrowed to `kid` when the token names one.
    ///
    /// Without a `kid` every key of the right type is a candidate (unless `requireKid`); with one,
    /// only keys carrying that exact `kid` are — a token never falls back to some other key.
    package func candidates(for algorithm: JWSAlgorithm, kid: String?, requireKid: Bool = false) throws(JOSEError) -> [JWK] {
        // The whole set when every key is a candidate (one key, the common case): no new array.
        if !keys.isEmpty, kid != nil || !requireKid,
           keys.allSatisfy({ key in key.canVerify(algorithm) && (kid.map { key.kid?.isExactly($0) == true } ?? true) }) {
            return keys
        }
        if let kid {
            // One pass and one array: this runs for every token.
            var usable: [JWK] = []
            var firstNamed: Int?
            for index in keys.indices where keys[index].kid?.isExactly(kid) == true {
                if firstNamed == nil { firstNamed = index }
                if keys[index].canVerify(algorithm) { usable.append(keys[index]) }
            }
            guard let firstNamed else { throw JOSEError(.keyNotFound, "no key with kid '\(kid)'") }
            guard !usable.isEmpty else {
                throw keys[firstNamed].restriction(for: algorithm, operation: "verify")
                    ?? JOSEError(.keyMismatch, "key '\(kid)' cannot verify \(algorithm.rawValue)")
            }
            return usable
        }
        guard !requireKid else { throw JOSEError(.keyNotFound, "the token has no kid and the key source requires one") }
        let usable = keys.filter { $0.canVerify(algorithm) }
        guard !usable.isEmpty else { throw JOSEError(.keyNotFound, "no key in the set can verify \(algorithm.rawValue)") }
        return usable
    }
}
