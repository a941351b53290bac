import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
import Rules
import Testing

/// DPoP (RFC 9449) as a resource server and a token endpoint check it: the RFC's own examples,
/// and proofs and bound tokens made by jwcrypto and joserfc (`Scripts/make-dpop-vectors.py`) with
/// the malformed variants each refused with its own code.
@Suite("DPoP vectors")
struct DPoPVectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let object: JSONObject
        var testDescription: String { "\(object["maker"]?.stringValue ?? "?"): \(object["name"]?.stringValue ?? "?")" }
    }

    static let document = try! Wycheproof.load("vectors.json", folder: "dpop")
    static let vectors = (document["vectors"]?.arrayValue ?? []).compactMap(\.objectValue).map(Vector.init)
    static let now = UnixTime(seconds: document["now"]?.numberValue?.doubleValue ?? 0)

    /// The policy the vectors are judged by: the issuer's access tokens, bound with DPoP.
    static func resourcePolicy(in directory: URL) throws -> Policy {
        let keys = directory.appendingPathComponent("issuer.json")
        try Data(try #require(document["issuer_keys"]).serializedBytes()).write(to: keys)
        let text = """
        policy: dpop-resource
        token:
          algorithms: [RS256]
          keys: {jwks_file: \(keys.path)}
          issuer: \(document["issuer"]?.stringValue ?? "")
          audience: \(document["audience"]?.stringValue ?? "")
        request:
          dpop: {}

        """
        return try Policy.load(text: text, file: directory.appendingPathComponent("policy.yaml").path, environment: [:], fileRoots: FileRoots([directory.path]))
    }

    static func judge(_ policy: Policy, _ request: JSONValue?, at now: UnixTime, store: MemoryReplayStore) throws -> Verdict {
        let subject = RequestSubject(json: try #require(request).serializedBytes())
        return try policy.evaluateNow(EvaluationRequest(subjects: [subject], now: now, signatureCache: nil, replayStore: store)).verdict
    }

    static func described(_ verdict: Verdict) -> String {
        verdict.findings.map { "\($0.code.rawValue): \($0.message)" }.joined(separator: "; ")
    }

    @Test("proofs from jwcrypto and joserfc reach their verdicts, and a valid proof is refused the second time", arguments: vectors)
    func vector(_ vector: Vector) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let policy = try Self.resourcePolicy(in: directory)
        let store = MemoryReplayStore()
        let verdict = try Self.judge(policy, vector.object["request"], at: Self.now, store: store)
        let expected = try #require(vector.object["expect"]?.stringValue)
        if expected == "valid" {
            #expect(verdict.valid && verdict.verified, "\(Self.described(verdict))")
            #expect(store.count == 1)
            let again = try Self.judge(policy, vector.object["request"], at: UnixTime(seconds: Self.now.seconds + 1), store: store)
            #expect(again.codes.map(\.rawValue) == ["dpop_proof_replayed"], "\(Self.described(again))")
        } else {
            #expect(verdict.codes.map(\.rawValue) == [expected], "\(Self.described(verdict))")
            #expect(store.count == 0, "a refused request used up its proof's jti")
        }
    }

    @Test("the vectors come from both makers and cover each refusal RFC 9449 §4.3 and §7 name")
    func coverage() {
        #expect(Set(Self.vectors.compactMap { $0.object["maker"]?.stringValue }) == ["jwcrypto", "joserfc"])
        let codes = Set(Self.vectors.compactMap { $0.object["expect"]?.stringValue })
        for code in ["valid", "dpop_htm_mismatch", "dpop_htu_mismatch", "dpop_proof_too_old", "dpop_iat_in_future", "dpop_key_invalid",
                     "dpop_alg_not_allowed", "dpop_ath_missing", "dpop_ath_mismatch", "dpop_binding_mismatch", "dpop_token_unbound",
                     "dpop_typ_invalid", "dpop_signature_invalid", "dpop_proof_malformed", "dpop_proof_missing"] {
            #expect(codes.contains(code), "no vector is \(code)")
        }
    }

    // RFC 9449's examples: the key of §4.1 (Figure 1), the proofs of Figure 2 (token request) and
    // Figure 13 (resource request with the access token of §7.1), and that key's thumbprint (§6.1).
    static let rfcHeader = "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19"
    static let rfcTokenRequestProof = rfcHeader
        + ".eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ"
        + ".2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"
    static let rfcResourceProof = rfcHeader
        + ".eyJqdGkiOiJlMWozVl9iS2ljOC1MQUVCIiwiaHRtIjoiR0VUIiwiaHR1IjoiaHR0cHM6Ly9yZXNvdXJjZS5leGFtcGxlLm9yZy9wcm90ZWN0ZWRyZXNvdXJjZSIsImlhdCI6MTU2MjI2MjYxOCwiYXRoIjoiZlVIeU8ycjJaM0RaNTNFc05yV0JiMHhXWG9hTnk1OUlpS0NBcWtzbVFFbyJ9"
        + ".2oW9RP35yRqzhrtNP86L-Ey71EOptxRimPPToA1plemAgR6pxHF8y6-yqyVnmcw6Fy1dqd-jfxSYoMxhAJpLjA"
    static let rfcAccessToken = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"

    /// A policy with `dpop` and no token section: a token endpoint's, or a resource server's
    /// whose access tokens are opaque (the binding is then the introspection's to check).
    static let proofPolicy = try! Policy.load(text: "policy: dpop-proof\nrequest:\n  dpop: {}\n", environment: [:])

    static func request(_ method: String, _ url: String, proof: String, token: String? = nil) -> JSONValue {
        var headers = JSONObject(["DPoP": .string(proof)])
        if let token { headers.set("Authorization", .string("DPoP \(token)")) }
        return .object(JSONObject(["method": .string(method), "url": .string(url), "headers": .object(headers)]))
    }

    @Test("RFC 9449 Figure 2: the token request's proof holds at its iat, and its key's thumbprint is §6.1's jkt")
    func rfcTokenRequest() throws {
        let request = Self.request("POST", "https://server.example.com/token", proof: Self.rfcTokenRequestProof)
        let verdict = try Self.judge(Self.proofPolicy, request, at: UnixTime(seconds: 1_562_262_616), store: MemoryReplayStore())
        #expect(verdict.valid, "\(Self.described(verdict))")
        let subject = RequestSubject(json: request.serializedBytes())
        #expect(try subject.dpopProof?.get().thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(try subject.dpopProof?.get().jti == "-BwC3ESc6acc2lTc")
        let elsewhere = Self.request("POST", "https://server.example.com/token/", proof: Self.rfcTokenRequestProof)
        #expect(try Self.judge(Self.proofPolicy, elsewhere, at: UnixTime(seconds: 1_562_262_616), store: MemoryReplayStore()).codes.map(\.rawValue) == ["dpop_htu_mismatch"])
        let late = try Self.judge(Self.proofPolicy, request, at: UnixTime(seconds: 1_562_262_616 + 66), store: MemoryReplayStore())
        #expect(late.codes.map(\.rawValue) == ["dpop_proof_too_old"])
    }

    @Test("RFC 9449 Figure 13: the resource request's proof holds with §7.1's access token, whose hash is its ath")
    func rfcResourceRequest() throws {
        #expect(DPoPProof.accessTokenHash(Self.rfcAccessToken) == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        let at = UnixTime(seconds: 1_562_262_618)
        let request = Self.request("GET", "https://resource.example.org/protectedresource", proof: Self.rfcResourceProof, token: Self.rfcAccessToken)
        let verdict = try Self.judge(Self.proofPolicy, request, at: at, store: MemoryReplayStore())
        #expect(verdict.valid, "\(Self.described(verdict))")
        let otherToken = Self.request("GET", "https://resource.example.org/protectedresource", proof: Self.rfcResourceProof, token: Self.rfcAccessToken + "x")
        #expect(try Self.judge(Self.proofPolicy, otherToken, at: at, store: MemoryReplayStore()).codes.map(\.rawValue) == ["dpop_ath_mismatch"])
        var characters = Array(Self.rfcResourceProof)
        characters[characters.count - 20] = characters[characters.count - 20] == "A" ? "B" : "A"
        let forged = Self.request("GET", "https://resource.example.org/protectedresource", proof: String(characters), token: Self.rfcAccessToken)
        #expect(try Self.judge(Self.proofPolicy, forged, at: at, store: MemoryReplayStore()).codes.map(\.rawValue) == ["dpop_signature_invalid"])
    }
}
