@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// Truncated, bit-flipped and re-encoded variants of valid tokens and keys: every one must end
/// in a `JOSEError` or a failed verification — never a crash, a hang or an acceptance.
@Suite("Mutations of tokens and keys")
struct MutationTests {
    static let payload = Array(#"{"iss":"https://issuer.example","aud":"api","exp":1795255200,"scope":"a b"}"#.utf8)

    /// Every variant of `token`: each prefix, each character with its lowest bit flipped, and each
    /// part re-encoded as padded standard base64.
    static func mutations(of token: String) -> [String] {
        let bytes = Array(token.utf8)
        var variants = (0..<bytes.count).map { String(decoding: bytes[..<$0], as: UTF8.self) }
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= 0x01
            variants.append(String(decoding: flipped, as: UTF8.self))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for index in parts.indices {
            guard let decoded = try? Base64URL.decode(parts[index]) else { continue }
            var reencoded = parts
            reencoded[index] = StandardBase64.encode(decoded)
            let candidate = reencoded.joined(separator: ".")
            if candidate != token { variants.append(candidate) }
        }
        variants.append(token + ".")
        variants.append(token + "=")
        variants.append(" " + token)
        return variants
    }

    @Test("JWS variants never verify", arguments: [JWSAlgorithm.rs256, .ps256, .es256, .es512, .eddsa, .ed448, .hs256, .bp256r1])
    func jwsMutations(algorithm: JWSAlgorithm) throws {
        let key = try JWK.generate(for: algorithm)
        let verifier = try key.publicKey
        let token = try CompactJWS.sign(payload: Self.payload, header: JSONObject(["typ": .string("JWT")]), algorithm: algorithm, key: key)
        #expect(try CompactJWS(token).verify(with: verifier))
        var rejectedByParsing = 0, rejectedBySignature = 0
        for variant in Self.mutations(of: token) {
            do {
                let jws = try CompactJWS(variant)
                _ = try? jws.claims()
                if try jws.verify(with: verifier) {
                    Issue.record("\(algorithm.rawValue): a mutated token verified: \(variant)")
                } else {
                    rejectedBySignature += 1
                }
            } catch {
                rejectedByParsing += 1
            }
        }
        #expect(rejectedByParsing > 0 && rejectedBySignature > 0)
    }

    @Test("JWE variants never decrypt", arguments: [
        (JWEKeyAlgorithm.rsaOAEP256, JWEContentEncryption.a256GCM), (.ecdhESA128KW, .a128CBCHS256), (.direct, .a256GCM), (.a256KW, .a256CBCHS512),
    ])
    func jweMutations(algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption) throws {
        let key = try JWK.generateForEncryption(algorithm)
        let token = try CompactJWE.encrypt([42, 43], to: algorithm.isSymmetric ? key : key.publicKey, keyAlgorithm: algorithm, contentEncryption: encryption)
        #expect(try CompactJWE(token).decrypt(with: key) == [42, 43])
        for variant in Self.mutations(of: token) {
            if let plaintext = try? CompactJWE(variant).decrypt(with: key) {
                Issue.record("\(algorithm.rawValue): a mutated JWE decrypted to \(plaintext): \(variant)")
            }
        }
    }

    @Test("mutated JWKs load or fail with a JOSEError; none makes a forged token verify",
          arguments: [JWSAlgorithm.rs256, .es256, .eddsa, .hs256])
    func keyMutations(algorithm: JWSAlgorithm) throws {
        let key = try JWK.generate(for: algorithm)
        let json = JSONValue.object(algorithm.isSymmetric ? try key.requiredMembers() : try key.publicKey.publicJSON()).serialized()
        let otherKey = try JWK.generate(for: algorithm)
        let forged = try CompactJWS(CompactJWS.sign(payload: Self.payload, algorithm: algorithm, key: otherKey))
        var loaded = 0, refused = 0
        for variant in Self.mutations(of: json) {
            do {
                let mutated = try JWK(json: Array(variant.utf8))
                loaded += 1
                if (try? forged.verify(with: mutated)) == true {
                    Issue.record("\(algorithm.rawValue): a mutated key verified a token signed by another key: \(variant)")
                }
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0)
    }
}
