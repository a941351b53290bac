internal import Prometheus
internal import PolicyEngine

/// The server's metrics in Prometheus' text format at `/metrics`: decisions by policy, endpoint
/// and result, findings by code, evaluation latency, and calls in flight.
///
/// A registry of its own, not swift-metrics' process-wide bootstrap: two servers in one process
/// (tests) keep separate counts, and nothing global is mutated.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge

    static var decisions: MetricNameDescriptor { MetricNameDescriptor(namespace: "policy", metricName: "decisions", unitName: "total",
                                                helpText: "Decisions by policy, endpoint and result.") }
    static var findings: MetricNameDescriptor { MetricNameDescriptor(namespace: "policy", metricName: "findings", unitName: "total",
                                               helpText: "Findings of invalid verdicts by policy and finding code.") }
    static var latency: MetricNameDescriptor { MetricNameDescriptor(namespace: "policy", metricName: "evaluation_duration", unitName: "seconds",
                                              helpText: "Time to judge one call, keys fetched included.") }
    static var calls: MetricNameDescriptor { MetricNameDescriptor(namespace: "policy", metricName: "calls_in_flight", unitName: "",
                                            helpText: "Calls being judged now.") }
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

    /// Records one decision.
    func record(policy: String, endpoint: String, verdict: Verdict, duration: Duration) {
        registry.makeCounter(descriptor: Self.decisions,
                             labels: [("policy", policy), ("endpoint", endpoint), ("result", verdict.valid ? "valid" : "invalid")]).increment()
        for code in Set(verdict.findings.map(\.code.rawValue)) {
            registry.makeCounter(descriptor: Self.findings, labels: [("policy", policy), ("code", code)]).increment()
        }
        registry.makeDurationHistogram(descriptor: Self.latency, labels: [("policy", policy)], buckets: Self.buckets).record(duration)
    }

    static var reloads: MetricNameDescriptor { MetricNameDescriptor(namespace: "policy", metricName: "reloads", unitName: "total",
                                                                   helpText: "Reloads of the policy directory, by result.") }

    /// Counts a reload.
    func recordReload(succeeded: Bool) {
        registry.makeCounter(descriptor: Self.reloads, labels: [("result", succeeded ? "succeeded" : "failed")]).increment()
    }

    /// The exposition text.
    var text: String { registry.emitToString() }
}
