import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
import Testing

/// JWS and JWE JSON serializations (general and flattened) and nested signed JWTs made by Python's
/// jwcrypto and joserfc (`Scripts/make-jose-json-vectors.py`), with the malformed variants the
/// engine refuses: each vector is judged by a policy built from its keys and must reach the
/// verdict it names.
@Suite("JOSE JSON serialization vectors")
struct JOSEJSONSerializationVectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let object: JSONObject
        var name: String { object["name"]?.stringValue ?? "?" }
        var testDescription: String { "\(object["maker"]?.stringValue ?? "?"): \(name)" }
    }

    static let document = try! Wycheproof.load("vectors.json", folder: "jose-json")
    static let vectors = (document["vectors"]?.arrayValue ?? []).compactMap(\.objectValue).map(Vector.init)
    static let now = UnixTime(seconds: document["now"]?.numberValue?.doubleValue ?? 0)

    @Test("vectors from jwcrypto and joserfc reach their verdicts", arguments: vectors)
    func vector(_ vector: Vector) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jose-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let object = vector.object
        func file(_ name: String, _ value: JSONValue?) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(try #require(value).serializedBytes()).write(to: url)
            return url.path
        }
        func list(_ member: String) -> String {
            "[" + (object[member]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ") + "]"
        }
        var lines = ["policy: vector", "token:"]
        switch object["kind"]?.stringValue {
        case "jws":
            lines += ["  algorithms: \(list("algorithms"))", "  keys: {jwks_file: \(try file("keys.json", object["keys"]))}",
                      "  signatures: \(object["signatures"].map { $0.stringValue ?? String(decoding: $0.serializedBytes(), as: UTF8.self) } ?? "any")"]
        case "jwe":
            lines += ["  format: jwe", "  decryption:", "    algorithms: \(list("key_algorithms"))", "    encryption: \(list("encryption"))",
                      "    key: {jwks_file: \(try file("keys.json", object["keys"]))}"]
        default:
            lines += ["  format: nested", "  algorithms: \(list("algorithms"))", "  keys: {jwks_file: \(try file("keys.json", object["keys"]))}",
                      "  decryption:", "    algorithms: \(list("key_algorithms"))", "    encryption: \(list("encryption"))",
                      "    key: {jwks_file: \(try file("private.json", object["decryption"]))}"]
        }
        lines += ["  issuer: https://issuer.example", "  audience: client-1"]
        let policy = try Policy.load(text: lines.joined(separator: "\n") + "\n", file: directory.appendingPathComponent("vector.yaml").path,
                                     environment: [:], fileRoots: FileRoots([directory.path]))
        let token = try #require(object["token"]?.stringValue)
        let verdict = try policy.evaluateNow(token: token, now: Self.now, signatureCache: nil)
        let expected = try #require(object["expect"]?.stringValue)
        if expected == "valid" {
            #expect(verdict.valid && verdict.verified, "\(verdict.findings.map { "\($0.code.rawValue): \($0.message)" })")
        } else {
            #expect(!verdict.valid)
            // Too few signers is said first; the failing signature's own findings follow it.
            let codes = verdict.codes.map(\.rawValue)
            #expect(expected == "too_few_signatures" ? codes.first == expected : codes == [expected],
                    "\(verdict.findings.map { "\($0.code.rawValue): \($0.message)" })")
        }
    }

    @Test("the vectors cover both makers, both serializations of both kinds, and nesting")
    func coverage() {
        let names = Self.vectors.map(\.name)
        #expect(Self.vectors.count >= 38)
        #expect(Set(Self.vectors.compactMap { $0.object["maker"]?.stringValue }) == ["jwcrypto", "joserfc"])
        for fragment in ["flattened JWS", "general JWS", "flattened JWE", "general JWE", "JWS in JWS in JWS", "JWE(JWS(JWS))"] {
            #expect(names.contains { $0.contains(fragment) }, "no vector for \(fragment)")
        }
    }
}
