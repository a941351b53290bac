internal import Prometheus
internal import PolicyRuntime
internal import PolicyJOSE
internal import Foundation
internal import Synchronization

/// The server's metrics in Prometheus' text format at `/metrics`: decisions by policy, endpoint
/// and result, findings by code, evaluation latency, calls in flight, reloads, and the key and
/// signature caches' fetches, lookups and stale serving, and the signature cache's hit rate,
/// evictions and memory.
///
/// A registry of its own, not swift-metrics' process-wide bootstrap: two servers in one process
/// (tests) keep separate counts, and nothing global is mutated.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge

    static var decisions: MetricNameDescriptor {
        named("decisions", "total", "Decisions by policy, endpoint and result: valid, invalid, no_credential or refused.")
    }
    static var refusals: MetricNameDescriptor {
        named("refusals", "total", "Calls answered without a verdict, by endpoint and code (credential_missing, credential_unsupported, target_invalid, no_route, ...).")
    }
    static var findings: MetricNameDescriptor { named("findings", "total", "Findings of invalid verdicts by policy and finding code.") }
    static var latency: MetricNameDescriptor { named("evaluation_duration", "seconds", "Time to judge one call, keys fetched included.") }
    static var calls: MetricNameDescriptor { named("calls_in_flight", "", "Calls being judged now.") }
    static var reloads: MetricNameDescriptor { named("reloads", "total", "Reloads of the policy directory, by result.") }
    static var keyFetches: MetricNameDescriptor { named("key_fetches", "total", "Fetches of remote key sets, by source and result.") }
    static var keyLookups: MetricNameDescriptor { named("key_cache_lookups", "total", "Key set lookups, by source: hit (from memory) or miss (waited for a fetch).") }
    static var staleServes: MetricNameDescriptor { named("key_stale_serves", "total", "Key sets served past their TTL while the provider failed, by source.") }
    static var keyAge: MetricNameDescriptor { named("key_set_age", "seconds", "Age of the key set being served, by source.") }
    static var signatureLookups: MetricNameDescriptor { named("signature_cache_lookups", "total", "Signature checks: hit (remembered) or miss (verified).") }
    static var signatureHitRatio: MetricNameDescriptor { named("signature_cache_hit", "ratio", "Share of signature checks answered from the cache since the start.") }
    static var signatureEvictions: MetricNameDescriptor { named("signature_cache_evictions", "total", "Remembered signature checks evicted to make room for others.") }
    static var signatureBytes: MetricNameDescriptor { named("signature_cache", "bytes", "Memory the signature cache takes (checks and decoded tokens), as it counts it.") }
    static var signatureLimit: MetricNameDescriptor { named("signature_cache_limit", "bytes", "The most memory the signature cache takes (signature_cache in serve.yaml).") }

    /// A metric of the `policy` namespace. The descriptors are made on use: the type is not
    /// `Sendable`, so it cannot be a stored static.
    private static func named(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "policy", metricName: metric, unitName: unit, helpText: help)
    }

    static let buckets: [Duration] = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
                                      .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .seconds(1)]

    init() {
        inFlight = registry.makeGauge(descriptor: Self.calls, labels: [])
    }

    /// Counts a call while `body` judges it.
    func measuring<T>(_ body: () async -> T) async -> T {
        inFlight.increment()
        defer { inFlight.decrement() }
        return await body()
    }

    /// One policy's decision counters and latency histogram, made once: the registry builds
    /// names and label strings on every lookup, which a busy endpoint should not pay for.
    private struct PolicyMetrics {
        let decisions: [String: Counter]
        let latency: DurationHistogram
    }

    private let byPolicy = Mutex<[String: PolicyMetrics]>([:])
    static let endpoints = ["check", "authz"]

    /// Records one decision at `endpoint` (`check` or `authz`) by `policy`, or by none when the
    /// call was refused before a policy was chosen: then only `policy_refusals_total` counts it.
    func record(policy: String?, endpoint: String, decision: Decision, duration: Duration) {
        if decision.verdict == nil {
            for code in decision.codes {
                registry.makeCounter(descriptor: Self.refusals, labels: [("endpoint", endpoint), ("code", code)]).increment()
            }
        }
        guard let policy else { return }
        let metrics = byPolicy.withLock { byPolicy in
            if let metrics = byPolicy[policy] { return metrics }
            var decisions: [String: Counter] = [:]
            for endpoint in Self.endpoints {
                for result in [Decision.Result.valid, .invalid, .noCredential, .refused] {
                    decisions[endpoint + result.rawValue] = registry.makeCounter(descriptor: Self.decisions,
                                                                                 labels: [("policy", policy), ("endpoint", endpoint), ("result", result.rawValue)])
                }
            }
            let metrics = PolicyMetrics(decisions: decisions,
                                        latency: registry.makeDurationHistogram(descriptor: Self.latency, labels: [("policy", policy)], buckets: Self.buckets))
            byPolicy[policy] = metrics
            return metrics
        }
        metrics.decisions[endpoint + decision.result.rawValue]?.increment()
        if decision.result == .invalid {
            for code in decision.codes {
                registry.makeCounter(descriptor: Self.findings, labels: [("policy", policy), ("code", code)]).increment()
            }
        }
        metrics.latency.record(duration)
    }

    /// Counts a reload.
    func recordReload(succeeded: Bool) {
        registry.makeCounter(descriptor: Self.reloads, labels: [("result", succeeded ? "succeeded" : "failed")]).increment()
    }

    /// Serializes scrapes: the cache-derived counters are set from the caches' own counts.
    private let scraping = Mutex(())

    /// The exposition text, with the key cache's and the signature cache's counts as of now.
    func text(keyCache: JWKSCache, signatureCache: SignatureCache, now: UnixTime = .now) -> String {
        scraping.withLock { _ in
            // Two sources written alike but with different cache settings count as one.
            var bySource: [String: (fetches: Int, failures: Int, hits: Int, misses: Int, stale: Int, fetchedAt: UnixTime?)] = [:]
            for (source, statistics) in keyCache.statistics() {
                var row = bySource[source.description] ?? (0, 0, 0, 0, 0, nil)
                row.fetches += statistics.fetches
                row.failures += statistics.failures
                row.hits += statistics.hits
                row.misses += statistics.misses
                row.stale += statistics.staleServes
                if let fetchedAt = statistics.fetchedAt { row.fetchedAt = max(row.fetchedAt ?? fetchedAt, fetchedAt) }
                bySource[source.description] = row
            }
            for (source, row) in bySource {
                set(Self.keyFetches, [("source", source), ("result", "succeeded")], to: row.fetches)
                set(Self.keyFetches, [("source", source), ("result", "failed")], to: row.failures)
                set(Self.keyLookups, [("source", source), ("result", "hit")], to: row.hits)
                set(Self.keyLookups, [("source", source), ("result", "miss")], to: row.misses)
                set(Self.staleServes, [("source", source)], to: row.stale)
                if let fetchedAt = row.fetchedAt {
                    registry.makeGauge(descriptor: Self.keyAge, labels: [("source", source)]).set(to: now.seconds - fetchedAt.seconds)
                }
            }
            let signatures = signatureCache.statistics
            set(Self.signatureLookups, [("result", "hit")], to: signatures.hits)
            set(Self.signatureLookups, [("result", "miss")], to: signatures.misses)
            set(Self.signatureEvictions, [], to: signatures.evictions)
            registry.makeGauge(descriptor: Self.signatureHitRatio, labels: []).set(to: signatures.hitRate ?? 0)
            registry.makeGauge(descriptor: Self.signatureBytes, labels: []).set(to: Double(signatureCache.memoryUsed))
            registry.makeGauge(descriptor: Self.signatureLimit, labels: []).set(to: Double(signatureCache.memoryLimit))
            return registry.emitToString()
        }
    }

    /// Sets a counter to a count kept elsewhere (it only ever grows there).
    private func set(_ descriptor: MetricNameDescriptor, _ labels: [(String, String)], to count: Int) {
        let counter = registry.makeCounter(descriptor: descriptor, labels: labels)
        counter.reset()
        counter.increment(by: Int64(count))
    }
}
