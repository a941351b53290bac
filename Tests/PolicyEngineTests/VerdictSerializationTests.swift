import Foundation
@testable import PolicyRuntime
import Testing

/// One serializer: the writer's compact and indented text and `Codable` say the same thing in
/// section 8's names.
@Suite("Verdict serialization")
struct VerdictSerializationTests {
    static let verdict: Verdict = {
        var trace = Trace(clock: .init(now: 1_795_251_600, source: "--now"))
        trace.entries = [.init(rule: "token.expires", status: .fail, at: "p.yaml:4:3", detail: "exp 1795251000"),
                         .init(rule: "token.keys", status: .notRun, at: "p.yaml:5:3", detail: nil)]
        trace.key = VerifiedKey(kid: "k1", source: "jwks_file keys.json", freshness: .stale)
        let nested = Finding(rule: "token.issuer", code: FindingCode("issuer_mismatch"), message: "iss \"a\"\n is not \"b\"", at: "b.yaml:3:3")
        return Verdict(policy: "p", valid: false, verified: true, keyFreshness: .stale,
                       findings: [Finding(rule: "request.bearer", code: FindingCode("bearer_invalid"), message: "the bearer token fails", at: "p.yaml:9:3", nested: [nested]),
                                  Finding(rule: "token.expires", code: FindingCode("token_expired"), message: "expired", at: "p.yaml:4:3")],
                       skipped: ["token.c_hash"], outputs: ["user": .string("u1"), "n": .number(.integer(3))], trace: trace)
    }()

    @Test("Codable writes what the writer writes, and reads it back")
    func codableAgrees() throws {
        let written = try JSONParser().parse(Array(Self.verdict.jsonText().utf8))
        let encoded = try JSONParser().parse(Array(JSONEncoder().encode(Self.verdict)))
        #expect(Self.sorted(encoded) == Self.sorted(written))
        let decoded = try JSONDecoder().decode(Verdict.self, from: Data(Self.verdict.jsonText().utf8))
        #expect(decoded.jsonText() == Self.verdict.jsonText())
    }

    @Test("the indented text is the compact text laid out, as the tree printer lays it out")
    func prettyAgrees() throws {
        let pretty = Self.verdict.jsonText(pretty: true)
        #expect(pretty == Self.verdict.json.prettyPrinted())
        #expect(try JSONParser().parse(Array(pretty.utf8)) == JSONParser().parse(Array(Self.verdict.jsonText().utf8)))
        #expect(pretty.contains("\n  \"skipped\": [\n    \"token.c_hash\"\n  ],"))
        let empty = Verdict(policy: "p", valid: true, verified: true, findings: [], skipped: [], outputs: [:], trace: nil)
        #expect(empty.jsonText(pretty: true) == "{\n  \"policy\": \"p\",\n  \"valid\": true,\n  \"verified\": true,\n  \"findings\": [],\n  \"skipped\": [],\n  \"outputs\": {}\n}")
    }

    /// Objects with their members in name order, to compare documents whose order differs.
    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .object(object):
            return .object(JSONObject(members: object.members.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
                .map { JSONMember(name: $0.name, value: sorted($0.value)) }))
        case let .array(items): return .array(items.map(sorted))
        default: return value
        }
    }
}
