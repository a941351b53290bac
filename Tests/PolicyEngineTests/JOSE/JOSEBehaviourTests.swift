import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

@Suite("JWS and JWE behaviour")
struct JOSEBehaviourTests {
    static let claims = Array(#"{"iss":"https://issuer.example","sub":"u-1","exp":1795255200}"#.utf8)

    @Test("sign then verify for every algorithm; a different key of the same type does not verify", arguments: JWSAlgorithm.allCases)
    func signVerify(algorithm: JWSAlgorithm) throws {
        let key = try JWK.generate(for: algorithm, kid: "k1")
        let token = try CompactJWS.sign(payload: Self.claims, header: JSONObject(["kid": .string("k1")]), algorithm: algorithm, key: key)
        let jws = try CompactJWS(token)
        #expect(jws.algorithm == algorithm && jws.header.kid == "k1")
        #expect(try jws.verify(with: key.publicKey))
        #expect(try !jws.verify(with: JWK.generate(for: algorithm).publicKey))
    }

    @Test("an RSA public key can never serve as an HMAC secret")
    func keyConfusion() throws {
        let rsa = try JWK.generate(for: .rs256).publicKey
        let der = try #require(rsa.asymmetricKey).publicKeyDER()
        let forged = try CompactJWS.sign(payload: Self.claims, algorithm: .hs256, key: JWK(secret: der))
        #expect { try CompactJWS(forged).verify(with: rsa) } throws: { ($0 as? JOSEError)?.code == .keyMismatch }
        #expect(!rsa.verifiableAlgorithms.contains(.hs256))
    }

    @Test("alg none and unknown algorithms are refused before anything else")
    func algNone() {
        #expect { try CompactJWS("eyJhbGciOiJub25lIn0.e30.") } throws: { ($0 as? JOSEError)?.code == .algNone }
        #expect { try CompactJWS("eyJhbGciOiJOT05FIn0.e30.") } throws: { ($0 as? JOSEError)?.code == .algNone }
        #expect { try CompactJWS("eyJhbGciOiJIUzEifQ.e30.") } throws: { ($0 as? JOSEError)?.code == .unsupportedAlgorithm }
    }

    @Test("size cap, b64:false and malformed crit are refused")
    func headerRules() throws {
        let key = try JWK.generate(for: .hs256)
        let token = try CompactJWS.sign(payload: Self.claims, algorithm: .hs256, key: key)
        #expect { try CompactJWS(token, limits: TokenLimits(maxTokenBytes: 40)) } throws: { ($0 as? JOSEError)?.code == .tokenTooLarge }
        for header in [#"{"b64":false,"crit":["b64"]}"#, #"{"crit":[]}"#, #"{"crit":["exp"]}"#, #"{"crit":["alg"]}"#] {
            var object = try JSONParser().parseObject(Array(header.utf8), what: "header")
            object.set("alg", .string("HS256"))
            let signed = try CompactJWS.sign(payload: Self.claims, header: object, algorithm: .hs256, key: key)
            #expect(throws: JOSEError.self, "\(header)") { try CompactJWS(signed) }
        }
        var understood = JSONObject(["exp": .number(.integer(1)), "crit": .array([.string("exp")])])
        understood.set("alg", .string("HS256"))
        let signed = try CompactJWS.sign(payload: Self.claims, header: understood, algorithm: .hs256, key: key)
        #expect(try CompactJWS(signed).header.critical == ["exp"])
    }

    /// The parts decode into one array: the signing input as given, the signature, the payload.
    /// Each part is refused in their order, with the part named, whatever else is wrong after it.
    @Test("a JWS's parts decode in place, and the first part that is not base64url is the one refused")
    func partsInPlace() throws {
        let key = try JWK.generate(for: .hs256)
        let token = try CompactJWS.sign(payload: Self.claims, algorithm: .hs256, key: key)
        let jws = try CompactJWS(token)
        let texts = token.split(separator: ".").map(String.init)
        #expect(Array(jws.signingInput) == Array("\(texts[0]).\(texts[1])".utf8))
        #expect(Array(jws.signature) == (try Base64URL.decode(texts[2])))
        #expect(Array(jws.payload) == Self.claims)
        #expect(Array(jws.signedBytes) == Array(jws.signingInput) + Array(jws.signature))
        #expect(try jws.verify(with: key) && JSONObjectView(try jws.claims())["sub"] != nil)
        func refusal(_ payload: String, _ signature: String) -> String? {
            do {
                _ = try CompactJWS("\(texts[0]).\(payload).\(signature)")
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal("AAAAA", "AAAAA") == "the payload part: base64url text of length 5 cannot encode whole bytes")
        #expect(refusal("AA=A", "AAAAA") == "the payload part: invalid base64url character '=' at offset 2 (padding is not allowed in base64url)")
        #expect(refusal("AB", "A+") == "the payload part: base64url text has non-zero trailing bits (not the canonical encoding)")
        #expect(refusal(texts[1], "AAAAA")?.hasPrefix("the signature part: base64url text of length 5") == true)
        #expect(refusal(texts[1], "AB") == "the signature part: base64url text has non-zero trailing bits (not the canonical encoding)")
        #expect(refusal(texts[1], "A+") == "the signature part: invalid base64url character '+' at offset 1 (standard base64 alphabet; base64url uses '-' and '_')")
        #expect(refusal(texts[1], "") == nil, "an empty signature is well formed; verifying it fails")
        #expect(refusal("", "AA") == nil)
    }

    @Test("a key's alg, use and key_ops restrict it")
    func keyRestrictions() throws {
        let base = #""kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA""#
        let token = try CompactJWS.sign(payload: Self.claims, algorithm: .hs256, key: JWK(json: Array("{\(base)}".utf8)))
        let jws = try CompactJWS(token)
        for member in [#""alg":"HS384""#, #""use":"enc""#, #""key_ops":["sign"]"#] {
            let key = try JWK(json: Array("{\(base),\(member)}".utf8))
            #expect(throws: JOSEError.self, "\(member)") { try jws.verify(with: key) }
        }
        #expect(try jws.verify(with: JWK(json: Array("{\(base),\"alg\":\"HS256\",\"use\":\"sig\",\"key_ops\":[\"verify\"]}".utf8))))
    }

    @Test("a kid picks exactly its key; without kid every key of the right type is tried")
    func keySetSelection() throws {
        let first = try JWK.generate(for: .es256, kid: "a"), second = try JWK.generate(for: .es256, kid: "b")
        let set = try JWKSet(keys: [first.publicKey, second.publicKey])
        let named = try CompactJWS(CompactJWS.sign(payload: Self.claims, header: JSONObject(["kid": .string("b")]), algorithm: .es256, key: second))
        #expect(try named.verify(with: set)?.kid == "b")
        let anonymous = try CompactJWS(CompactJWS.sign(payload: Self.claims, algorithm: .es256, key: second))
        #expect(try anonymous.verify(with: set)?.kid == "b")
        #expect { try anonymous.verify(with: set, requireKid: true) } throws: { ($0 as? JOSEError)?.code == .keyNotFound }
        let unknown = try CompactJWS(CompactJWS.sign(payload: Self.claims, header: JSONObject(["kid": .string("zz")]), algorithm: .es256, key: second))
        #expect { try unknown.verify(with: set) } throws: { ($0 as? JOSEError)?.code == .keyNotFound }
    }

    /// The candidates a set offers for a token: the whole set when every key is one (no new
    /// array), and otherwise exactly the keys named and able, in the set's order.
    @Test("candidates: a kid's keys that can verify the alg, every able key without kid, and the refusals")
    func candidates() throws {
        let a = try JWK.generate(for: .es256, kid: "a").publicKey, b = try JWK.generate(for: .es256, kid: "b").publicKey
        let es384 = try JWK.generate(for: .es384, kid: "c").publicKey
        func kids(_ keys: [JWK]) -> [String?] { keys.map(\.kid) }
        let pair = try JWKSet(keys: [a, b])
        #expect(try kids(pair.candidates(for: .es256, kid: "a")) == ["a"])
        #expect(try kids(pair.candidates(for: .es256, kid: "b")) == ["b"])
        #expect(try kids(pair.candidates(for: .es256, kid: nil)) == ["a", "b"])
        #expect { try pair.candidates(for: .es256, kid: nil, requireKid: true) } throws: { ($0 as? JOSEError)?.code == .keyNotFound }
        #expect { try pair.candidates(for: .es256, kid: "c") } throws: { ($0 as? JOSEError)?.code == .keyNotFound }
        let single = try JWKSet(keys: [a])
        #expect(try kids(single.candidates(for: .es256, kid: "a")) == ["a"])
        #expect(try kids(single.candidates(for: .es256, kid: nil)) == ["a"])
        #expect { try single.candidates(for: .es384, kid: "a") } throws: { ($0 as? JOSEError)?.code == .keyMismatch }
        #expect { try single.candidates(for: .es384, kid: nil) } throws: { ($0 as? JOSEError)?.code == .keyNotFound }
        // Keys of two curves: without kid only those that can verify the alg; a kid naming a key
        // of the other curve is a mismatch, not a fallback to the able one.
        let mixed = try JWKSet(keys: [a, es384])
        #expect(try kids(mixed.candidates(for: .es384, kid: nil)) == ["c"])
        #expect(try kids(mixed.candidates(for: .es256, kid: nil)) == ["a"])
        #expect { try mixed.candidates(for: .es256, kid: "c") } throws: { ($0 as? JOSEError)?.code == .keyMismatch }
    }

    @Test("a JWK Set skips unknown kty and broken keys, and refuses ambiguity")
    func keySetParsing() throws {
        let good = try JWK.generate(for: .es256).publicKey.publicJSON()
        let text = #"{"keys":[{"kty":"PQC","kid":"x"},{"kty":"EC","crv":"P-256","x":"AA","y":"AA"},"# + JSONValue.object(good).serialized() + "]}"
        let set = try JWKSet(json: Array(text.utf8))
        #expect(set.keys.count == 1)
        #expect(set.skipped.map(\.error.code) == [.keyUnsupported, .keyInvalid])
        #expect { try JWKSet(keys: [JWK.generate(for: .hs256), JWK.generate(for: .es256).publicKey]) } throws: { ($0 as? JOSEError)?.code == .keySetInvalid }
    }

    @Test("RSA keys: minimum size, exponent, leading zeros")
    func rsaKeyChecks() throws {
        let key = try JWK.generate(for: .rs256).publicKey
        let members = try key.requiredMembers()
        let n = try #require(members["n"]?.stringValue)
        func load(_ n: String, _ e: String, minimum: Int = 2048) throws -> JWK {
            try JWK(json: Array(#"{"kty":"RSA","n":"\#(n)","e":"\#(e)"}"#.utf8), options: KeyLoadingOptions(minimumRSABits: minimum))
        }
        _ = try load(n, "AQAB")
        #expect { try load(n, "AQAB", minimum: 3072) } throws: { ($0 as? JOSEError)?.code == .keyTooWeak }
        #expect { try load(n, "AQ") } throws: { ($0 as? JOSEError)?.code == .keyInvalid }
        #expect { try load(n, "AAEAAQ") } throws: { ($0 as? JOSEError)?.code == .keyInvalid }
        #expect { try load("AA" + n, "AQAB") } throws: { ($0 as? JOSEError)?.code == .keyInvalid }
    }

    static let encryptionPairs: [(JWEKeyAlgorithm, JWEContentEncryption)] = JWEKeyAlgorithm.allCases.flatMap { alg in
        JWEContentEncryption.allCases.map { (alg, $0) }
    }

    @Test("JWE encrypt then decrypt for every alg and enc; a tampered tag fails", arguments: encryptionPairs)
    func jweRoundTrip(algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption) throws {
        var key = try JWK.generateForEncryption(algorithm)
        if algorithm == .direct { key = JWK(secret: SecureRandom.bytes(encryption.keyByteCount)) }
        let recipient = algorithm.isSymmetric ? key : try key.publicKey
        let plaintext = Array("the password".utf8)
        let token = try CompactJWE.encrypt(plaintext, to: recipient, keyAlgorithm: algorithm, contentEncryption: encryption,
                                           header: JSONObject(["nonce": .string("n-1")]))
        let jwe = try CompactJWE(token)
        #expect(jwe.header.string("nonce") == "n-1")
        #expect(try jwe.decrypt(with: key) == plaintext)
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[4] = Base64URL.encode(try Base64URL.decode(parts[4]).map { $0 ^ 1 })
        #expect { try CompactJWE(parts.joined(separator: ".")).decrypt(with: key) } throws: { ($0 as? JOSEError)?.code == .decryptionFailed }
    }

    @Test("ECDH-ES on every supported curve and X25519")
    func ecdhCurves() throws {
        for curve in [EllipticCurve.p256, .p384, .p521, .brainpoolP256r1] {
            let key = try JWK.generateForEncryption(.ecdhESA256KW, curve: curve)
            let token = try CompactJWE.encrypt([1, 2, 3], to: key.publicKey, keyAlgorithm: .ecdhESA256KW, contentEncryption: .a256GCM)
            #expect(try CompactJWE(token).decrypt(with: key) == [1, 2, 3], "\(curve)")
        }
        let x25519 = try JWK.generateForEncryption(.ecdhES, x25519: true)
        let token = try CompactJWE.encrypt([4], to: x25519.publicKey, keyAlgorithm: .ecdhES, contentEncryption: .a128GCM)
        #expect(try CompactJWE(token).decrypt(with: x25519) == [4])
    }

    @Test("an ephemeral key from another curve is refused (invalid-curve attack)")
    func ephemeralCurve() throws {
        let recipient = try JWK.generateForEncryption(.ecdhES, curve: .p256)
        let other = try JWK.generateForEncryption(.ecdhES, curve: .p384)
        let token = try CompactJWE.encrypt([1], to: other.publicKey, keyAlgorithm: .ecdhES, contentEncryption: .a128GCM)
        #expect { try CompactJWE(token).decrypt(with: recipient) } throws: { ($0 as? JOSEError)?.code == .invalidEphemeralKey }
    }

    @Test("RSA1_5, PBES2 and zip are refused when parsing")
    func refusedJWE() {
        for header in [#"{"alg":"RSA1_5","enc":"A128GCM"}"#, #"{"alg":"PBES2-HS256+A128KW","enc":"A128GCM"}"#] {
            let token = Base64URL.encode(Array(header.utf8)) + ".AA.AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA"
            #expect { try CompactJWE(token) } throws: { ($0 as? JOSEError)?.code == .unsupportedAlgorithm }
        }
        let zipped = Base64URL.encode(Array(#"{"alg":"dir","enc":"A128GCM","zip":"DEF"}"#.utf8)) + "..AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA"
        #expect { try CompactJWE(zipped) } throws: { ($0 as? JOSEError)?.code == .unsupportedHeader }
    }
}
