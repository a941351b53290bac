internal import Foundation
@_spi(RuleAuthoring) package import PolicyJOSE

/// Where a policy's verification (or decryption) keys come from (POLICY-FORMAT.md section 4),
/// and how a token's `alg`, `kid` and `x5c` select among them.
package struct KeySource: Sendable {
    /// Where the keys come from.
    package enum Origin: Sendable {
        /// Keys written in or beside the policy, loaded once at compile time.
        case local(JWKSet)
        /// A `jwks_uri` or `discovery` source, resolved through the policy's `JWKSCache`.
        case remote(RemoteKeySource)
        /// A remote source judged by its stored snapshots (`history:`) as of each evaluation's
        /// time, never fetched while evaluating; `keys snapshot` fetches the remote to add one.
        case history(KeyHistory, of: RemoteKeySource)
        /// Only keys carried in a token's `x5c` chain, under `certificateTrust`.
        case tokenCertificate
    }

    /// What the keys are for, as `policy-run keys` lists them.
    package enum Purpose: String, Sendable {
        case verification
        case decryption
        /// Request fields: a public key encrypts them (`policy-run encrypt`), a private key also
        /// proves they decrypt.
        case encryption
    }

    /// Local keys, a remote source, or only a token's `x5c` chain.
    package let origin: Origin
    /// What the keys are for.
    package let purpose: Purpose
    /// How the source was written, for traces and `explain`: `jwks_file Policies/keys/x.json`.
    package let description: String
    /// Whether a token without `kid` is refused instead of trying every matching key.
    package let requireKid: Bool
    /// `x5c: {trust: …}`: a token carrying `x5c` is verified with its chain's leaf key, and only that.
    package let certificateTrust: CertificateTrust?
    /// Limits for keys read at evaluation time (an `x5c` leaf).
    package let keyOptions: KeyLoadingOptions
    /// For local keys, how a verdict names each key of the set that verified (by position):
    /// made once, so that verifying a token with a local key allocates no description of it.
    package let localProofs: [VerifiedKey]

    /// A key source; policies get theirs from `keys:` through the compiler.
    package init(origin: Origin, purpose: Purpose = .verification, description: String, requireKid: Bool,
                certificateTrust: CertificateTrust? = nil, keyOptions: KeyLoadingOptions = .standard) {
        self.origin = origin
        self.purpose = purpose
        self.description = description
        self.requireKid = requireKid
        self.certificateTrust = certificateTrust
        self.keyOptions = keyOptions
        if case let .local(keys) = origin {
            localProofs = keys.keys.map { VerifiedKey(kid: $0.kid, source: description, freshness: .fresh) }
        } else {
            localProofs = []
        }
    }

    /// The keys written in or beside the policy; nil for remote and certificate-only sources.
    package var localKeys: JWKSet? {
        if case let .local(keys) = origin { return keys }
        return nil
    }

    /// The remote source resolved for each evaluation, if any (not one judged by its history).
    package var remote: RemoteKeySource? {
        if case let .remote(source) = origin { return source }
        return nil
    }

    /// The snapshots this source is judged by, when the policy names a `history`.
    package var history: KeyHistory? {
        if case let .history(history, _) = origin { return history }
        return nil
    }

    /// The keys to try for `jws` at `now`, or why there are none; remote sets are read from
    /// `keySets`, resolved for this evaluation. `now` is read only where the answer depends on
    /// it (a certificate's validity, a key history), so that a verdict from local keys holds at
    /// any time (`EvaluationContext.timeWindow`).
    ///
    /// A token carrying `x5c` under a configured trust anchor is verified with its leaf key and
    /// nothing else; a `kid` the set does not know is refused, never a quiet fallback to other
    /// keys.
    package func selectKeys(for jws: CompactJWS, at now: @autoclosure () -> Double, keySets: [RemoteKeySource: KeyResolution]) -> KeySelection {
        let algorithm = jws.algorithm
        let kid = jws.keyID
        if let certificateTrust, let chain = jws.header.object["x5c"] {
            let items = chain.arrayValue ?? []
            let entries = items.compactMap(\.stringValue)
            guard !items.isEmpty, entries.count == items.count else {
                return .refused(.certificateUntrusted("the x5c header must be a non-empty array of base64 certificates"))
            }
            let leaf: JWK
            do {
                leaf = try certificateTrust.leafKey(x5c: entries, kid: kid, at: now(), options: keyOptions)
            } catch {
                return .refused(.certificateUntrusted("\(error.message) (\(certificateTrust.description))"))
            }
            guard leaf.canVerify(algorithm) else {
                return .refused(.unavailable("the x5c leaf key (\(leaf.type)) cannot verify \(algorithm.rawValue)"))
            }
            guard let identity = try? KeySetIdentity(keys: [leaf]) else {
                return .refused(.unavailable("the x5c leaf key could not be exported to identify it"))
            }
            return .keys([leaf], freshness: .fresh, source: certificateTrust.description, keySet: identity)
        }
        let resolved: ResolvedKeys
        var snapshot: KeySnapshot?
        switch origin {
        case let .local(keys):
            resolved = ResolvedKeys(keys: keys, fetchedAt: nil, freshness: .fresh)
        case let .history(history, _):
            switch history.keys(at: now()) {
            case let .keys(keys, served):
                resolved = ResolvedKeys(keys: keys, fetchedAt: nil, freshness: .fresh)
                snapshot = served
            case let .beforeHistory(message):
                return .refused(.beforeHistory(message))
            }
        case let .remote(source):
            switch keySets[source] {
            case let .available(keys)?: resolved = keys
            case let .unavailable(error)?: return .refused(.unavailable(error.message))
            case nil: return .refused(.unavailable("the keys of \(source) were not resolved for this evaluation"))
            }
        case .tokenCertificate:
            return .refused(.unavailable("the token carries no x5c chain, and \(description) accepts only keys from one"))
        }
        let selectsByKid = resolved.keys.selectsByKid
        do {
            let candidates = try resolved.keys.candidates(for: algorithm, kid: selectsByKid ? kid : nil, requireKid: requireKid && kid == nil)
            // A local set's candidates are the whole set, in order, when there are as many.
            let proofs = localProofs.count == candidates.count && !localProofs.isEmpty ? localProofs : nil
            return .keys(candidates, freshness: resolved.freshness, source: description, keySet: resolved.keys.identity, snapshot: snapshot, proofs: proofs)
        } catch {
            if let kid, selectsByKid, error.code == .keyNotFound {
                if let history { return .refused(history.absence(of: kid, at: now())) }
                let fetched = resolved.fetchedAt.map { " (fetched \(UnixTime.iso8601($0.timeIntervalSince1970)))" } ?? ""
                if let dropped = resolved.keys.skipped.first(where: { $0.kid == kid }) {
                    // The set names the kid, but its key could not be used: say why here, in the
                    // verdict, not only in a warning when the set was read.
                    return .refused(.kidUnknown("the key with kid '\(kid)' in \(description)\(fetched) is unusable and was left out: \(dropped.error.message)"))
                }
                let refetch = resolved.refetchProblem.map { "; \($0)" } ?? ""
                return .refused(.kidUnknown("no key with kid '\(kid)' in \(description)\(fetched)\(refetch)"))
            }
            if kid == nil, requireKid {
                return .refused(.kidMissing("the token has no kid, and \(description) requires one"))
            }
            return .refused(.unavailable("\(error.message) (\(description))"))
        }
    }
}

/// The outcome of choosing keys for one token.
package enum KeySelection: Sendable {
    /// Keys to try, whether their set is current as of this evaluation, where they came from
    /// (for the trace), the identity of the set by content (for remembering signature checks), and
    /// for a source judged by its history, the snapshot that stood at the evaluation time.
    /// `proofs`, when given, describe the candidates as a verdict names them, by position.
    case keys([JWK], freshness: KeyFreshness, source: String, keySet: KeySetIdentity, snapshot: KeySnapshot? = nil, proofs: [VerifiedKey]? = nil)
    /// No key may be tried, and why.
    case refused(KeyRefusal)
}

/// Why no key could be chosen for a token; the engine turns each into its finding.
package enum KeyRefusal: Sendable, Equatable {
    /// The token's `x5c` chain does not verify to the trust anchor, or its leaf is not acceptable.
    case certificateUntrusted(String)
    /// No key of the set has the token's `kid`.
    case kidUnknown(String)
    /// The set requires a `kid`, and the token has none.
    case kidMissing(String)
    /// The keys are out of reach (a source down, nothing cached), or none can serve the algorithm.
    case unavailable(String)
    /// The evaluation time is before the oldest snapshot of the source's history.
    case beforeHistory(String)
    /// The token's `kid` names a key first published after the evaluation time.
    case publishedLater(String)

    /// What happened, for a person.
    package var message: String {
        switch self {
        case let .certificateUntrusted(text), let .kidUnknown(text), let .kidMissing(text), let .unavailable(text), let .beforeHistory(text),
             let .publishedLater(text): text
        }
    }
}
