internal import PolicyEngine
internal import PolicyJOSE

public import PolicyRuntime
internal import Foundation
internal import Rules
internal import PolicyHTTP

/// The policies a server serves, by name: every `*.yaml` of a directory except test files,
/// compiled with one key cache so policies naming the same key source share its fetches.
public struct PolicySet: Sendable {
    /// The compiled policies by their `policy:` name.
    public let policies: [String: Policy]
    /// The directory they came from.
    public let directory: String
    /// Each policy as forward auth applies it, by name.
    let fronts: [String: FrontPolicy]
    /// The remote key sources the policies name, each once.
    public let remoteKeySources: [RemoteKeySource]
    /// The cache they are fetched through.
    let keyCache: JWKSCache

    /// Compiles every policy of `directory`.
    ///
    /// - Throws: `PolicyDiagnostics` with every problem of every file that does not compile,
    ///   or of two files naming the same policy; a server starts only with all of them.
    public init(directory: String, keyCache: JWKSCache) throws(PolicyDiagnostics) {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { PolicyPath.isYAML($0) && !$0.hasSuffix(".test.yaml") && !$0.hasSuffix(".test.yml") }.sorted()
        var policies: [String: Policy] = [:]
        var problems: [Diagnostic] = []
        for file in files {
            let path = PolicyPath.joined(directory, file)
            do {
                let policy = try Policy.load(file: path, keyCache: keyCache)
                if let other = policies[policy.name] {
                    problems.append(Diagnostic(.error, .conflict, "two files name the policy '\(policy.name)' (the other is \(other.files[0]))",
                                               at: SourceLocation(file: path, line: 1, column: 1), hint: "give each policy its own name"))
                }
                policies[policy.name] = policy
            } catch {
                problems += error.sorted.filter { $0.severity == .error }
            }
        }
        if policies.isEmpty, problems.isEmpty {
            problems.append(Diagnostic(.error, .fileUnreadable, "no policy file (*.yaml) in \(directory)", at: SourceLocation(file: directory, line: 1, column: 1)))
        }
        guard problems.isEmpty else { throw PolicyDiagnostics(problems) }
        self.policies = policies
        self.directory = directory
        fronts = policies.mapValues(FrontPolicy.init)
        remoteKeySources = policies.keys.sorted().flatMap { policies[$0]!.remoteKeySources }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        self.keyCache = keyCache
    }

    /// The remote sources with no key set to serve: never fetched, or failed past
    /// `stale_if_error`. Asks no provider, so a probe costs nothing.
    public func sourcesWithoutKeys(at now: UnixTime = .now) -> [(source: RemoteKeySource, problem: String)] {
        remoteKeySources.compactMap { source in
            let statistics = keyCache.statistics(for: source)
            guard let fetchedAt = statistics.fetchedAt else {
                return (source, statistics.lastFailure?.message ?? "not fetched yet")
            }
            let age = now.seconds - fetchedAt.seconds
            guard age >= source.cacheTTL.seconds + source.staleIfError.seconds else { return nil }
            return (source, "its last key set is \(Int(age)) s old, past stale_if_error" + (statistics.lastFailure.map { " (\($0.message))" } ?? ""))
        }
    }
}
