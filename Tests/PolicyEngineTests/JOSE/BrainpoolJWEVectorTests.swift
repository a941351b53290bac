import Foundation
import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// ECDH-ES JWE on brainpool curves against vectors made by python3-cryptography
/// (`Scripts/make-brainpool-jwe-vectors.py`, through `Scripts/reference_jose.py`): decryption of
/// every valid case, reproduction of its encrypted key and ciphertext from the same random values,
/// and the refusal of invalid-curve points, small-order points of other curves and malformed
/// ephemeral keys with the code each case names.
@Suite("Brainpool ECDH-ES JWE vectors")
struct BrainpoolJWEVectorTests {
    struct Group {
        let curve: EllipticCurve
        let recipient: JWK
        let cases: [JSONObject]
    }

    static func groups() throws -> [Group] {
        let document = try Wycheproof.load("brainpool_jwe_test.json", folder: "brainpool-jwe")
        let groups = try #require(document["testGroups"]?.arrayValue)
        return try groups.map { value in
            let group = try #require(value.objectValue)
            let curve = try #require(EllipticCurve(jwkName: group["curve"]?.stringValue ?? ""))
            let recipient = try JWK(object: try #require(group["recipient"]?.objectValue))
            return Group(curve: curve, recipient: recipient, cases: try #require(group["tests"]?.arrayValue).compactMap(\.objectValue))
        }
    }

    static func string(_ test: JSONObject, _ name: String) -> String { test[name]?.stringValue ?? "" }

    static func label(_ group: Group, _ test: JSONObject) -> String {
        "\(group.curve.jwkName) tcId \(test["tcId"].map { "\($0)" } ?? "?") (\(string(test, "comment")))"
    }

    @Test("every curve, key-wrap size and content encryption decrypts to the vector's plaintext")
    func decryptsValidCases() throws {
        var checked = 0
        for group in try Self.groups() {
            for test in group.cases where Self.string(test, "result") == "valid" {
                let jwe = try CompactJWE(Self.string(test, "jwe"))
                #expect(try jwe.decrypt(with: group.recipient) == Array(Self.string(test, "plaintext").utf8), "\(Self.label(group, test))")
                checked += 1
            }
        }
        #expect(checked == 48, "3 curves × 4 key-management algorithms × 4 content encryptions")
    }

    /// The engine's encryption given the vector's ephemeral key, content key and IV must produce
    /// the vector's encrypted key and ciphertext: agreement, Concat KDF, key wrap and content
    /// cipher on our side match the reference's. (The tag covers the header as serialized, whose
    /// member order is the encoder's own, so it is checked by decrypting instead.)
    @Test("encrypting with the vector's random values reproduces its encrypted key and ciphertext")
    func reproducesValidCases() throws {
        for group in try Self.groups() {
            let recipient = try group.recipient.publicKey
            for test in group.cases where Self.string(test, "result") == "valid" {
                let vector = try CompactJWE(Self.string(test, "jwe"))
                let epk = try #require(vector.header.object["epk"]?.objectValue)
                let ephemeral = try ECKey(curve: group.curve, x: try Base64URL.decode(Self.string(epk, "x")), y: try Base64URL.decode(Self.string(epk, "y")),
                                          d: try Base64URL.decode(Self.string(test, "ephemeral")))
                let randomness = JWERandomness(contentKey: Hex.decode(Self.string(test, "cek")), iv: Hex.decode(Self.string(test, "iv")),
                                               keyWrapIV: [], ephemeralKey: .ec(ephemeral))
                var header = JSONObject()
                for name in ["apu", "apv"] { if let value = vector.header.object[name] { header.set(name, value) } }
                let token = try CompactJWE.encrypt(Array(Self.string(test, "plaintext").utf8), to: recipient, keyAlgorithm: vector.keyAlgorithm,
                                                   contentEncryption: vector.contentEncryption, header: header, randomness: randomness)
                let ours = try CompactJWE(token)
                #expect(ours.header.object["epk"] == vector.header.object["epk"], "\(Self.label(group, test)): epk")
                #expect(ours.encryptedKey == vector.encryptedKey, "\(Self.label(group, test)): encrypted key")
                #expect(ours.ciphertext == vector.ciphertext, "\(Self.label(group, test)): ciphertext")
                #expect(try ours.decrypt(with: group.recipient) == Array(Self.string(test, "plaintext").utf8), "\(Self.label(group, test)): round trip")
            }
        }
    }

    @Test("invalid-curve and small-order points, malformed ephemeral keys and tampering are refused with their codes")
    func refusesInvalidCases() throws {
        var flags: Set<String> = []
        for group in try Self.groups() {
            for test in group.cases where Self.string(test, "result") == "invalid" {
                let refusal: String?
                do {
                    _ = try CompactJWE(Self.string(test, "jwe")).decrypt(with: group.recipient)
                    refusal = nil
                } catch {
                    refusal = error.code.rawValue
                }
                #expect(refusal == Self.string(test, "error"), "\(Self.label(group, test))")
                flags.formUnion(test["flags"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
        }
        #expect(flags.isSuperset(of: ["InvalidCurveOrder2", "InvalidCurveOrder3", "OffCurve", "CoordinateNotReduced", "OtherCurve", "NistPointRelabelled"]))
    }
}
