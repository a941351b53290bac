public import Foundation
import Synchronization

/// The cache's clock, moved by the test: TTLs and refetch spacing are checked without sleeping.
public final class TestClock: Sendable {
    private let instant = Mutex(Date(timeIntervalSince1970: 1_795_253_400))

    public init() {}

    public var now: Date { instant.withLock { $0 } }

    public func advance(_ seconds: TimeInterval) {
        instant.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
