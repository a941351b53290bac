@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// `once`: a claim's value accepted once while valid, per issuer, recorded only by a verdict that
/// is otherwise valid, and refused (never passed) when the store cannot record it.
@Suite("Once")
struct OnceRuleTests {
    let fixture = TokenFixture.shared

    func codes(_ policy: Policy, _ token: String, store: (any ReplayStore)?, at now: Double = TokenFixture.now) throws -> [String] {
        try policy.evaluateNow(EvaluationRequest(token: token, now: UnixTime(seconds: now), signatureCache: nil, replayStore: store)).verdict.codes.map(\.rawValue)
    }

    @Test("a jti is accepted once before exp; another issuer's equal jti is new; a number is no jti (RFC 7519 §4.1.7)")
    func once() throws {
        let policy = try fixture.policy("once: {value: claims.jti}")
        let store = MemoryReplayStore()
        let token = try fixture.token(["jti": .string("j-1")])
        #expect(try codes(policy, token, store: store) == [])
        #expect(try codes(policy, token, store: store) == ["value_replayed"])
        #expect(try codes(policy, try fixture.token(["jti": .string("j-1"), "iss": .string("https://other.example")]), store: store) == [])
        #expect(try codes(policy, try fixture.token(["jti": .number(.integer(7))]), store: store) == ["claim_type"])
    }

    @Test("within a duration: remembered that long after the evaluation, new again after it")
    func duration() throws {
        let policy = try fixture.policy("expires: optional\nonce: {value: claims.jti, within: 10m}")
        let store = MemoryReplayStore()
        let token = try fixture.token(["jti": .string("j-2")], remove: ["exp"])
        #expect(try codes(policy, token, store: store) == [])
        #expect(try codes(policy, token, store: store, at: TokenFixture.now + 599) == ["value_replayed"])
        #expect(try codes(policy, token, store: store, at: TokenFixture.now + 601) == [])
    }

    @Test("no jti, a jti of the wrong type, no exp to remember it until: each refused with its code")
    func refusals() throws {
        let store = MemoryReplayStore()
        let policy = try fixture.policy("once: {value: claims.jti}")
        #expect(try codes(policy, try fixture.token(), store: store) == ["claim_missing"])
        #expect(try codes(policy, try fixture.token(["jti": .array([])]), store: store).contains("claim_type"))
        let optional = try fixture.policy("expires: optional\nonce: {value: claims.jti}")
        #expect(try codes(optional, try fixture.token(["jti": .string("j-3")], remove: ["exp"]), store: store) == ["claim_missing"])
        #expect(store.count == 0)
    }

    @Test("a forged token or one failing another rule uses up nothing; no store or a full one refuses as undecided")
    func nothingUsedUp() throws {
        let policy = try fixture.policy("once: {value: claims.jti}\nissuer: https://issuer.example")
        let store = MemoryReplayStore(capacity: 1)
        #expect(try codes(policy, try fixture.token(["jti": .string("j-4")], signer: fixture.otherKey), store: store) == ["signature_invalid"])
        #expect(try codes(policy, try fixture.token(["jti": .string("j-4"), "iss": .string("https://x.example")]), store: store) == ["issuer_mismatch"])
        #expect(store.count == 0)
        #expect(try codes(policy, try fixture.token(["jti": .string("j-4")]), store: store) == [])
        #expect(try codes(policy, try fixture.token(["jti": .string("j-5")]), store: store) == ["replay_store_unavailable"])
        #expect(try codes(policy, try fixture.token(["jti": .string("j-6")]), store: nil) == ["replay_store_unavailable"])
    }

    @Test("value names a claim as claims.NAME; within is exp or a positive duration")
    func compileErrors() {
        for (body, expected) in [("once: {value: jti}", "invalid_value"), ("once: {within: exp}", "missing_key"), ("once: {value: claims.jti, within: never}", "wrong_type")] {
            do {
                _ = try fixture.policy(body)
                Issue.record("\(body) compiled")
            } catch let error as PolicyDiagnostics {
                #expect(error.sorted.map(\.code.rawValue).contains(expected), "\(body): \(error.sorted)")
            } catch {
                Issue.record("\(body): \(error)")
            }
        }
    }
}
