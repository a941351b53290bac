@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// The in-memory replay store: a value is new once until it expires, equal values of different
/// scopes are apart, racing recorders agree on one first use, and a full store refuses rather
/// than forgets.
@Suite("Memory replay store")
struct MemoryReplayStoreTests {
    static func value(_ text: String, scope: String = "s", until seconds: Double) -> OneTimeValue {
        OneTimeValue(text, scope: scope, expires: UnixTime(seconds: seconds), replayCode: FindingCode("x_replayed"), what: "the value")
    }

    @Test("a value is new once within its lifetime, new again after it expired; scopes keep equal values apart")
    func lifetime() throws {
        let store = MemoryReplayStore()
        #expect(try store.recordNow([Self.value("a", until: 100)], now: 10)?.get() == [true])
        #expect(try store.recordNow([Self.value("a", until: 100)], now: 99)?.get() == [false])
        #expect(try store.recordNow([Self.value("a", scope: "t", until: 100)], now: 99)?.get() == [true])
        #expect(try store.recordNow([Self.value("a", until: 200)], now: 100)?.get() == [true])
        #expect(try store.recordNow([Self.value("b", until: 200), Self.value("b", until: 200)], now: 100)?.get() == [true, false])
    }

    @Test("a full store refuses new values until some expire, and never forgets an unexpired one")
    func capacity() throws {
        let store = MemoryReplayStore(capacity: 3)
        for name in ["a", "b", "c"] { #expect(try store.recordNow([Self.value(name, until: 50)], now: 0)?.get() == [true]) }
        #expect(throws: ReplayStoreError.self) { try store.recordNow([Self.value("d", until: 50)], now: 1)?.get() }
        #expect(try store.recordNow([Self.value("a", until: 50)], now: 2)?.get() == [false])
        #expect(try store.recordNow([Self.value("d", until: 90)], now: 60)?.get() == [true])
        #expect(store.count == 1)
    }

    @Test("many tasks recording one value at once: exactly one finds it new")
    func race() async throws {
        let store = MemoryReplayStore()
        let fresh = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 { group.addTask { (try? await store.record([Self.value("jti", until: 100)], now: 1))?.first ?? false } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(fresh == 1)
    }
}
