import Foundation
import PolicyCrypto
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules
import Testing

/// `request.encrypted_fields` and the encryptor behind `policy-run encrypt`.
@Suite("Encrypted request fields")
struct EncryptedFieldsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Keys")
    static let rsa = try! JWK(pem: String(contentsOf: folder.appendingPathComponent("test-rsa-oaep.key.pem"), encoding: .utf8))
    static let ec = try! JWK(pem: String(contentsOf: folder.appendingPathComponent("test-ecdh-p256.key.pem"), encoding: .utf8))

    /// How a policy names the key for `alg` and `enc`: the RSA or EC key files (private, or
    /// public with `publicOnly`), or an inline secret of the right length.
    static func keySource(_ alg: JWEKeyAlgorithm, _ enc: JWEContentEncryption, publicOnly: Bool) -> String {
        let half = publicOnly ? "pub" : "key"
        switch alg {
        case .rsaOAEP, .rsaOAEP256: return "{pem_file: \(folder.appendingPathComponent("test-rsa-oaep.\(half).pem").path)}"
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: return "{pem_file: \(folder.appendingPathComponent("test-ecdh-p256.\(half).pem").path)}"
        default:
            return #"{jwk: {"kty": "oct", "k": "\#(Base64URL.encode(Array(repeating: 7, count: secretLength(alg, enc))))"}}"#
        }
    }

    /// The key that decrypts what `keySource(alg, enc, …)` names.
    static func key(_ alg: JWEKeyAlgorithm, _ enc: JWEContentEncryption) -> JWK {
        switch alg {
        case .rsaOAEP, .rsaOAEP256: return rsa
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: return ec
        default: return JWK(secret: Array(repeating: 7, count: secretLength(alg, enc)))
        }
    }

    static func secretLength(_ alg: JWEKeyAlgorithm, _ enc: JWEContentEncryption) -> Int {
        alg == .direct ? enc.keyByteCount : alg.rawValue.contains("128") ? 16 : alg.rawValue.contains("192") ? 24 : 32
    }

    static func policy(_ alg: JWEKeyAlgorithm = .rsaOAEP256, _ enc: JWEContentEncryption = .a256GCM, keys: String? = nil, publicOnly: Bool = false,
                       roots: [URL] = [folder]) throws -> Policy {
        try Policy.load(text: """
        policy: fields
        inputs:
          server_nonce: {required: false}
        request:
          encrypted_fields:
            fields: [password, device.signature.iaAuthData]
            algorithms: [\(alg.rawValue)]
            encryption: [\(enc.rawValue)]
            nonce: ${server_nonce}
            key: \(keys ?? keySource(alg, enc, publicOnly: publicOnly))
        """, file: "fields.yaml", environment: [:], fileRoots: FileRoots(roots.map(\.path)))
    }

    static let plain = try! JSONParser().parseObject(Array(#"""
    {"method": "POST", "url": "/auth/v1/authenticate", "headers": {"content-type": "application/json"},
     "body": {"username": "alice", "password": "correct horse battery staple", "device": {"signature": {"iaAuthData": {"k": [1, 2]}}}}}
    """#.utf8), what: "a request")

    static func check(_ policy: Policy, _ request: JSONObject, nonce: String? = "n-1") throws -> Verdict {
        try policy.evaluateNow(subjects: [RequestSubject(object: request)], inputs: nonce.map { ["server_nonce": .string($0)] } ?? [:], now: UnixTime(seconds: TokenFixture.now))
    }

    @Test("encrypt then check passes for every alg/enc pair, with the private key proving each field decrypts",
          arguments: JWEKeyAlgorithm.allCases)
    func roundTrip(_ alg: JWEKeyAlgorithm) throws {
        for enc in JWEContentEncryption.allCases {
            let policy = try Self.policy(alg, enc)
            let encrypted = try RequestEncryptor(policy: policy).encrypt(request: Self.plain, inputs: ["server_nonce": .string("n-1")])
            let verdict = try Self.check(policy, encrypted)
            #expect(verdict.valid, "\(alg.rawValue)/\(enc.rawValue): \(verdict.findings.map(\.message))")
            let body = try #require(encrypted["body"]?.objectValue)
            #expect(body["username"] == .string("alice"))
            let password = try CompactJWE(try #require(body["password"]?.stringValue))
            #expect(password.header.object["nonce"] == .string("n-1"))
            #expect(try password.decrypt(with: Self.key(alg, enc)) == Array("correct horse battery staple".utf8))
        }
    }

    @Test("brainpool: policy-run encrypt's encryptor with a BP-256 public key, checked and decrypted with the private key (gematik's puk_idp_enc)")
    func brainpool() throws {
        let keys = Self.folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Policies/keys")
        for alg in [JWEKeyAlgorithm.ecdhES, .ecdhESA128KW, .ecdhESA256KW] {
            let encryptor = try RequestEncryptor(policy: try Self.policy(alg, keys: "{pem_file: \(keys.appendingPathComponent("test-idp-enc.pub.pem").path)}", roots: [keys]))
            let encrypted = try encryptor.encrypt(request: Self.plain, inputs: ["server_nonce": .string("n-1")])
            let checker = try Self.policy(alg, keys: "{pem_file: \(keys.appendingPathComponent("test-idp-enc.key.pem").path)}", roots: [keys])
            #expect(try Self.check(checker, encrypted).valid, "\(alg.rawValue)")
            let password = try CompactJWE(try #require(encrypted["body"]?.objectValue?["password"]?.stringValue))
            #expect(password.header.object["epk"]?.objectValue?["crv"] == .string("BP-256"))
            let p256 = try Self.policy(alg, keys: Self.keySource(alg, .a256GCM, publicOnly: false))
            let other = try Self.check(p256, encrypted)
            #expect(other.codes == [.decryptionFailed, .decryptionFailed], "\(alg.rawValue): an epk of another curve than the key's")
        }
    }

    @Test("a plaintext field, a corrupt JWE, RSA1_5, a disallowed enc, crit and a wrong shape fail with their codes; messages never show the value")
    func refusals() throws {
        let policy = try Self.policy(publicOnly: true)
        let good = try RequestEncryptor(policy: policy).encrypt(request: Self.plain, inputs: ["server_nonce": .string("n-1")])
        let goodPassword = try #require(good["body"]?.objectValue?["password"]?.stringValue)
        let parts = goodPassword.split(separator: ".").map(String.init)
        func header(_ json: String) -> String { String(decoding: Base64URL.encodeBytes(Array(json.utf8)), as: UTF8.self) }
        let cases: [(JSONValue, FindingCode)] = [
            (.string("correct horse battery staple"), .fieldNotEncrypted),
            (.number(.integer(1234)), .fieldNotEncrypted),
            (.string("x" + goodPassword), .fieldNotEncrypted),
            (.string(([header(#"{"alg":"RSA1_5","enc":"A256GCM"}"#)] + parts.dropFirst()).joined(separator: ".")), .encryptionNotAllowed),
            (.string(([header(#"{"alg":"RSA-OAEP-256","enc":"A128GCM"}"#)] + parts.dropFirst()).joined(separator: ".")), .encryptionNotAllowed),
            (.string(([header(#"{"alg":"RSA-OAEP-256","enc":"A256GCM","nonce":"n-1","crit":["x"],"x":1}"#)] + parts.dropFirst()).joined(separator: ".")), .critUnsupported),
            (.string([parts[0], parts[1], "AAAA", parts[3], parts[4]].joined(separator: ".")), .fieldNotEncrypted),
            (.string([parts[0], "", parts[2], parts[3], parts[4]].joined(separator: ".")), .fieldNotEncrypted),
        ]
        for (value, code) in cases {
            var body = try #require(good["body"]?.objectValue)
            body.set("password", value)
            var request = good
            request.set("body", .object(body))
            let verdict = try Self.check(policy, request)
            #expect(verdict.codes == [code], "\(value): \(verdict.findings.map(\.message))")
            #expect(verdict.findings.allSatisfy { !$0.message.contains("horse") })
        }
    }

    @Test("missing fields, a wrong nonce, and a field another key encrypted")
    func missingNonceAndKey() throws {
        let policy = try Self.policy()
        let encrypted = try RequestEncryptor(policy: policy).encrypt(request: Self.plain, inputs: ["server_nonce": .string("n-1")])
        #expect(try Self.check(policy, encrypted, nonce: "n-2").codes == [.nonceMismatch, .nonceMismatch])
        // Without the nonce input, the nonce checks are skipped and listed, not passed silently.
        let skipped = try Self.check(policy, encrypted, nonce: nil)
        #expect(skipped.valid, "\(skipped.findings.map(\.message))")
        #expect(skipped.skipped == ["request.encrypted_fields.password.nonce", "request.encrypted_fields.device.signature.iaAuthData.nonce"])
        var body = try #require(encrypted["body"]?.objectValue)
        body = JSONObject(members: body.members.filter { $0.name != "password" })
        var request = encrypted
        request.set("body", .object(body))
        #expect(try Self.check(policy, request).codes == [.fieldMissing])
        let strangerFile = FileManager.default.temporaryDirectory.appendingPathComponent("stranger-\(UUID().uuidString).pem")
        try Self.strangerPEM.write(to: strangerFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: strangerFile) }
        let stranger = try Self.policy(keys: "{pem_file: \(strangerFile.path)}", roots: [FileManager.default.temporaryDirectory])
        #expect(try Self.check(stranger, encrypted).codes == [.decryptionFailed, .decryptionFailed])
        #expect(try Self.check(Self.policy(publicOnly: true), encrypted).valid)
    }

    @Test("RSA-OAEP: every failure after key selection reads the same (RFC 7516 §11.5): bad length, bad padding, a short content key, a bad tag")
    func uniformDecryptionFailures() throws {
        let policy = try Self.policy()
        let good = try RequestEncryptor(policy: policy).encrypt(request: Self.plain, inputs: ["server_nonce": .string("n-1")])
        let parts = try #require(good["body"]?.objectValue?["password"]?.stringValue).split(separator: ".").map(String.init)
        func encoded(_ bytes: [UInt8]) -> String { String(decoding: Base64URL.encodeBytes(bytes), as: UTF8.self) }
        // A content key of the wrong length, wrapped correctly: encrypted for A128GCM, labelled A256GCM.
        let short = try CompactJWE.encrypt(Array("x".utf8), to: Self.rsa.publicKey, keyAlgorithm: .rsaOAEP256, contentEncryption: .a128GCM,
                                           header: JSONObject(["nonce": .string("n-1")])).split(separator: ".").map(String.init)
        let relabelled = encoded(Array(#"{"alg":"RSA-OAEP-256","enc":"A256GCM","nonce":"n-1"}"#.utf8))
        var tag = try Base64URL.decode(parts[4])
        tag[0] ^= 1
        let fields = [
            [parts[0], encoded(SecureRandom.bytes(257)), parts[2], parts[3], parts[4]],
            [parts[0], encoded(SecureRandom.bytes(256)), parts[2], parts[3], parts[4]],
            [relabelled, short[1], short[2], short[3], short[4]],
            [parts[0], parts[1], parts[2], parts[3], encoded(tag)],
        ]
        var messages: Set<String> = []
        for field in fields {
            var body = try #require(good["body"]?.objectValue)
            body.set("password", .string(field.joined(separator: ".")))
            var request = good
            request.set("body", .object(body))
            let verdict = try Self.check(policy, request)
            #expect(verdict.codes == [.decryptionFailed], "\(verdict.findings.map(\.message))")
            messages.formUnion(verdict.findings.map(\.message))
        }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.contains(CompactJWE.uniformFailure) == true)
    }

    @Test("a key that cannot serve the listed algorithms is a compile error")
    func keyCompileErrors() throws {
        let error = #expect(throws: PolicyDiagnostics.self) { try Self.policy(.rsaOAEP256, .a256GCM, keys: Self.keySource(.ecdhES, .a256GCM, publicOnly: false)) }
        #expect(error?.items.first?.code == .keySource)
        #expect(error?.items.first?.message.contains("cannot decrypt with RSA-OAEP-256") == true)
        let publicEC = #expect(throws: PolicyDiagnostics.self) { try Self.policy(.rsaOAEP, .a256GCM, keys: Self.keySource(.ecdhES, .a256GCM, publicOnly: true)) }
        #expect(publicEC?.items.first?.message.contains("cannot encrypt with RSA-OAEP") == true)
        let cases: [(String, DiagnosticCode)] = [
            ("request:\n  encrypted_fields: {algorithms: [RSA-OAEP-256]}\n", .missingKey),
            ("request:\n  encrypted_fields: {fields: [password], algorithms: [RSA1_5]}\n", .invalidValue),
            ("request:\n  encrypted_fields: {fields: [password], encryption: []}\n", .invalidValue),
            ("request:\n  encrypted_fields: {fields: [password], key: {jwks_uri: https://idp.example/jwks}}\n", .invalidValue),
        ]
        for (text, code) in cases {
            let found = CompileErrorTests.diagnostics("policy: p\n" + text)
            #expect(found.contains { $0.code == code && $0.severity == .error }, "\(text): \(found.map(\.description))")
        }
    }

    @Test("the encryptor refuses policies without fields or key, and requests without the fields")
    func encryptorErrors() throws {
        #expect(throws: RequestEncryptionError.self) { try RequestEncryptor(policy: TokenFixture.shared.policy("")) }
        let encryptor = try RequestEncryptor(policy: Self.policy())
        #expect(throws: RequestEncryptionError.self) { try encryptor.encrypt(request: Self.plain, inputs: [:]) }
        var noBody = Self.plain
        noBody.set("body", .string("not json"))
        #expect(throws: RequestEncryptionError.self) { try encryptor.encrypt(request: noBody, inputs: ["server_nonce": .string("n")]) }
        // A body sent as JSON text stays text.
        var textBody = Self.plain
        textBody.set("body", .string(#"{"password": "p", "device": {"signature": {"iaAuthData": "d"}}}"#))
        let encrypted = try encryptor.encrypt(request: textBody, inputs: ["server_nonce": .string("n")])
        #expect(encrypted["body"]?.stringValue?.hasPrefix(#"{"password":"ey"#) == true)
    }

    /// An RSA key no policy here trusts: the examples' signing key stands in for a stranger.
    static let strangerPEM = try! String(contentsOf: folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Policies/keys/test-rs256.key.pem"), encoding: .utf8)
}
