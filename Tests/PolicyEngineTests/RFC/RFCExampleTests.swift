import Foundation
@testable import PolicyEngine
import Testing

/// Examples from the JOSE RFCs. Each check is self-verifying: a mistyped key or token cannot
/// verify, and Ed25519 signing is deterministic, so the exact signature must come out.
@Suite("RFC examples")
struct RFCExampleTests {
    static let jwtPayloadA1 = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    @Test("RFC 7515 A.1: HS256, with a header holding CRLF whitespace")
    func rfc7515HS256() throws {
        let key = try JWK(json: Array(#"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#.utf8))
        let token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\(Self.jwtPayloadA1).dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let jws = try CompactJWS(token)
        #expect(jws.algorithm == .hs256)
        #expect(try jws.verify(with: key))
        let claims = try jws.claims()
        #expect(claims["iss"] == .string("joe"))
        #expect(claims["exp"] == .number(.integer(1_300_819_380)))
        #expect(claims["http://example.com/is_root"] == .bool(true))
    }

    @Test("RFC 7515 A.3: ES256 with a raw r‖s signature, verified with the public key")
    func rfc7515ES256() throws {
        let key = try JWK(json: Array(#"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#.utf8))
        let token = "eyJhbGciOiJFUzI1NiJ9.\(Self.jwtPayloadA1).DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        #expect(try CompactJWS(token).verify(with: key))
        #expect(try !CompactJWS(token.replacingFirst("DtEh", with: "DtEi")).verify(with: key))
    }

    static let ed25519Key = #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    static let ed25519Token = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    @Test("RFC 8037 A.1–A.3: the Ed25519 private key, its public key and its thumbprint")
    func rfc8037Keys() throws {
        let key = try JWK(json: Array(Self.ed25519Key.utf8))
        #expect(key.type == .okp(.ed25519) && key.isPrivate)
        let publicKey = try key.publicKey
        #expect(!publicKey.isPrivate)
        #expect(try publicKey.publicJSON()["x"] == .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"))
        #expect(try key.thumbprint() == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
    }

    @Test("RFC 8037 A.4–A.5: Ed25519 signing gives the RFC's signature, which verifies")
    func rfc8037Signature() throws {
        let key = try JWK(json: Array(Self.ed25519Key.utf8))
        let signed = try CompactJWS.sign(payload: Array("Example of Ed25519 signing".utf8), algorithm: .eddsa, key: key)
        #expect(signed == Self.ed25519Token)
        let jws = try CompactJWS(Self.ed25519Token)
        #expect(try jws.verify(with: key.publicKey))
        let tampered = try CompactJWS(Self.ed25519Token.replacingFirst("RXhh", with: "RXhi"))
        #expect(try !tampered.verify(with: key.publicKey))
    }

    /// Wycheproof copies RFC 7520's keys but adds an `alg` to each, and for Figures 20 and 27
    /// the added `alg` is wrong. With the RFC's own keys (no `alg`) all four JWS examples of
    /// section 4 must verify.
    @Test("RFC 7520 §4.1–4.4 with the RFC's keys (no alg member)")
    func rfc7520Signatures() throws {
        let document = try Wycheproof.load("json_web_signature_test.json")
        var verified: [String] = []
        for group in (document["testGroups"]?.arrayValue ?? []).compactMap(\.objectValue) where group["comment"] == .string("rfc7520") {
            var keyObject = try #require(group["public"]?.objectValue ?? group["private"]?.objectValue)
            keyObject = JSONObject(members: keyObject.members.filter { $0.name != "alg" })
            let key = try JWK(object: keyObject)
            for test in (group["tests"]?.arrayValue ?? []).compactMap(\.objectValue) {
                let jws = try CompactJWS(try #require(test["jws"]?.stringValue))
                #expect(try jws.verify(with: key), "RFC 7520 \(test["comment"]?.stringValue ?? "")")
                verified.append(jws.algorithm.rawValue)
            }
        }
        #expect(Set(verified) == ["RS256", "PS384", "ES512", "HS256"])
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
