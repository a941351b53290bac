public import Foundation
public import PolicyRuntime
import PolicyJOSE
internal import Synchronization

/// The policy set a server answers with, replaced whole on reload: a new set is compiled aside
/// and swapped in atomically; one that does not compile leaves the previous set serving, and
/// the failure is kept for `/readyz`, the log and the metrics.
public final class ServedPolicies: Sendable {
    /// What the last reload did.
    public struct ReloadStatus: Sendable {
        /// When it ran.
        public let time: Date
        /// Whether the new set is serving.
        public let succeeded: Bool
        /// The diagnostics of the files that did not compile.
        public let problems: [Diagnostic]
    }

    /// The directory policies are read from.
    public let directory: String
    /// The cache every set fetches remote keys through, kept across reloads.
    public let keyCache: JWKSCache
    private let state: Mutex<(set: PolicySet, lastReload: ReloadStatus?, fingerprint: PolicyDirectoryFingerprint)>

    /// Compiles the directory's policies.
    ///
    /// - Throws: `PolicyDiagnostics` when a file does not compile: a server does not start
    ///   with less than all of them.
    public init(directory: String, keyCache: JWKSCache) throws(PolicyDiagnostics) {
        self.directory = directory
        self.keyCache = keyCache
        let fingerprint = PolicyDirectoryFingerprint(directory)
        state = Mutex((try PolicySet(directory: directory, keyCache: keyCache), nil, fingerprint))
    }

    /// The set serving now.
    public var current: PolicySet { state.withLock { $0.set } }

    /// What the last reload did; nil before the first.
    public var lastReload: ReloadStatus? { state.withLock { $0.lastReload } }

    /// Compiles the directory again and serves the result if every file compiles.
    @discardableResult
    public func reload() -> ReloadStatus {
        reload(seeing: PolicyDirectoryFingerprint(directory))
    }

    /// Compiles the directory, whose contents before compiling were `fingerprint`.
    private func reload(seeing fingerprint: PolicyDirectoryFingerprint) -> ReloadStatus {
        let status: ReloadStatus
        do {
            let set = try PolicySet(directory: directory, keyCache: keyCache)
            status = ReloadStatus(time: Date(), succeeded: true, problems: [])
            state.withLock { $0 = (set, status, fingerprint) }
        } catch {
            status = ReloadStatus(time: Date(), succeeded: false, problems: error.sorted)
            state.withLock { $0.lastReload = status; $0.fingerprint = fingerprint }
        }
        return status
    }

    /// Reloads when what the directory holds changed since the last load (a file, or where a
    /// link leads: `PolicyDirectoryFingerprint`); nil when nothing did.
    public func reloadIfChanged() -> ReloadStatus? {
        let fingerprint = PolicyDirectoryFingerprint(directory)
        guard state.withLock({ $0.fingerprint }) != fingerprint else { return nil }
        return reload(seeing: fingerprint)
    }
}
