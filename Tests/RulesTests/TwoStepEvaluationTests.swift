import FlyingFox
import Foundation
import KeyServer
import PolicyEngine
import PolicyJOSE
import Testing

/// The public core every way of evaluating uses: `start` judges what the process holds,
/// `finish` fetches what it waits for; one `EvaluationRequest` carries the subjects and settings.
@Suite("Two-step evaluation")
struct TwoStepEvaluationTests {
    let fixture = TokenFixture.shared

    @Test("a cold remote key set: start waits for keys naming the source, finish fetches once and judges; evaluateNow says keys_not_cached")
    func coldThenWarm() async throws {
        let server = try await KeyServer()
        await server.json("/jwks", fixture.jwksJSON)
        let url = server.url("/jwks").absoluteString
        let policy = try Policy.load(text: """
        policy: two-step
        token:
          algorithms: [ES256]
          keys: {jwks_uri: "\(url)", allow_http: true}
          issuer: https://issuer.example
          audience: client-1
        """, file: "two-step.yaml", environment: [:], keyCache: JWKSCache())
        let request = try EvaluationRequest(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now), signatureCache: nil)
        #expect(throws: EvaluationError.self) { try policy.evaluateNow(request) }
        guard case let .waitingForKeys(pending) = try policy.start(request) else {
            Issue.record("a cold cache must wait for keys")
            return
        }
        #expect(pending.uncached?.description.contains(url) == true)
        let evaluation = await policy.finish(pending)
        #expect(evaluation.verdict.valid && evaluation.token?.claims["iss"] == .string("https://issuer.example"))
        guard case let .finished(warm) = try policy.start(request) else {
            Issue.record("a warm cache must finish at once")
            return
        }
        #expect(warm.verdict.valid)
        #expect(try policy.evaluateNow(request).verdict.valid)
        #expect(await server.requests("/jwks") == 1)
        await server.stop()
    }

    @Test("a caller mistake throws with its code; a bad token is a verdict with no decoded token")
    func mistakesAndRefusals() throws {
        let policy = try fixture.policy("")
        do {
            _ = try policy.evaluateNow(EvaluationRequest(now: UnixTime(seconds: TokenFixture.now)))
            Issue.record("a missing token must throw")
        } catch {
            #expect(error.code == .missingSubject)
        }
        let refused = try policy.evaluateNow(EvaluationRequest(token: "not.a.token", now: UnixTime(seconds: TokenFixture.now)))
        #expect(!refused.verdict.valid && refused.token == nil)
    }
}
