import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Testing

/// `Policy.recompiled`: a policy compiled again from the bytes the first compile read, for a
/// worker on another core, judging exactly as the original whatever the files hold by then.
@Suite("Policy copies")
struct PolicyCopiesTests {
    let fixture = TokenFixture.shared
    let scratch: ScratchFolder

    init() throws {
        scratch = try ScratchFolder("policy-copies")
    }

    private func base(issuer: String) -> String {
        """
        policy: base
        token:
          algorithms: [ES256]
          keys: {jwks_file: keys.json}
          issuer: \(issuer)
          audience: client-1
        """
    }

    @Test("a copy has rule objects of its own and judges with the key file and base its original read, after both change")
    func copiesReadWhatTheFirstCompileRead() throws {
        try scratch.write(base(issuer: "https://issuer.example"), to: "base.yaml")
        try scratch.write(fixture.jwksJSON, to: "keys.json")
        try scratch.write("extends: base\npolicy: copied\n", to: "policy.yaml")
        let file = scratch.path("policy.yaml").path
        let policy = try Policy.load(file: file, environment: [:])
        // Then the files change: another key under the same kid, another issuer.
        let otherKey = try fixture.otherKey.publicKey.publicJSON()
        try scratch.write(String(decoding: JSONValue.object(JSONObject(["keys": .array([.object(otherKey)])])).serializedBytes(), as: UTF8.self), to: "keys.json")
        try scratch.write(base(issuer: "https://other.example"), to: "base.yaml")

        let copies = [policy.recompiled(), policy.recompiled()]
        #expect(zip(copies[0].root.rules, copies[1].root.rules).allSatisfy { $0 !== $1 })
        let now = UnixTime(seconds: TokenFixture.now)
        let token = try fixture.token()
        let signedByOther = try fixture.token(signer: fixture.otherKey)
        for copy in copies {
            #expect(copy.name == "copied")
            #expect(copy.root.rules.count == policy.root.rules.count)
            #expect(zip(copy.root.rules, policy.root.rules).allSatisfy { $0 !== $1 })
            #expect(try copy.evaluateNow(token: token, now: now).valid)
            #expect(try copy.evaluateNow(token: signedByOther, now: now).codes == [.signatureInvalid])
        }
        // Compiled from the files as they are now, the policy judges otherwise: they did change.
        let fresh = try Policy.load(file: file, environment: [:])
        #expect(try fresh.evaluateNow(token: token, now: now).codes.contains(.signatureInvalid))
    }

    @Test("a copy of policy text reads its key file as the first compile did; one that cannot be compiled again is the original")
    func copiesOfText() throws {
        try scratch.write(fixture.jwksJSON, to: "keys.json")
        let policy = try Policy.load(text: base(issuer: "https://issuer.example"), file: scratch.path("inline.yaml").path, environment: [:])
        let otherKey = try fixture.otherKey.publicKey.publicJSON()
        try scratch.write(String(decoding: JSONValue.object(JSONObject(["keys": .array([.object(otherKey)])])).serializedBytes(), as: UTF8.self), to: "keys.json")
        let copy = policy.recompiled()
        #expect(zip(copy.root.rules, policy.root.rules).allSatisfy { $0 !== $1 })
        #expect(try copy.evaluateNow(token: fixture.token(), now: UnixTime(seconds: TokenFixture.now)).valid)
        // A key file gone is refused by the file roots before any read: no copy, the original stands in.
        try FileManager.default.removeItem(at: scratch.path("keys.json"))
        let standIn = policy.recompiled()
        #expect(zip(standIn.root.rules, policy.root.rules).allSatisfy { $0 === $1 })
    }

    @Test("a replay answers what the recorded compile read, without reading, and marks a read it never made")
    func replayedReads() {
        let reads = CompileReads()
        #expect(reads.bytes(of: "/policies/a.yaml") { [1, 2, 3] } == [1, 2, 3])
        #expect(reads.bytes(of: "/policies/missing.json") { nil } == nil)
        let replay = reads.replay()
        var readAgain = false
        #expect(replay.bytes(of: "/policies/a.yaml") { readAgain = true; return [9] } == [1, 2, 3])
        #expect(replay.bytes(of: "/policies/missing.json") { readAgain = true; return [9] } == nil)
        #expect(!readAgain)
        #expect(!replay.missed)
        #expect(replay.bytes(of: "/policies/b.yaml") { readAgain = true; return [9] } == nil)
        #expect(!readAgain)
        #expect(replay.missed)
        #expect(!reads.missed)
    }
}
