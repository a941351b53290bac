internal import Synchronization

/// Whether the server is draining: told to stop, it still serves for a while so that the load
/// balancer in front sees `/readyz` fail and moves traffic away before the listener closes.
/// Meanwhile every answer carries `Connection: close`, so keep-alive clients reconnect elsewhere.
final class ServerDrain: Sendable {
    private let draining = Atomic(false)

    /// Whether a stop was asked for.
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Starts draining; false when it already had.
    @discardableResult
    func begin() -> Bool {
        !draining.exchange(true, ordering: .relaxed)
    }
}
