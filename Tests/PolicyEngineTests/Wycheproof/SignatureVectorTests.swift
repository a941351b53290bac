import PolicyCrypto
@testable import PolicyRuntime
@testable import PolicyJOSE
import Testing

/// The signature and MAC files, through the crypto façade and the `JWK` verification API.
@Suite("Wycheproof signatures")
struct SignatureVectorTests {
    static let ecdsaFiles: [(String, JWSAlgorithm)] = [
        ("ecdsa_secp256r1_sha256_p1363_test.json", .es256),
        ("ecdsa_secp384r1_sha384_p1363_test.json", .es384),
        ("ecdsa_secp521r1_sha512_p1363_test.json", .es512),
        ("ecdsa_secp256k1_sha256_p1363_test.json", .es256k),
        ("ecdsa_brainpoolP256r1_sha256_p1363_test.json", .bp256r1),
        ("ecdsa_brainpoolP384r1_sha384_p1363_test.json", .bp384r1),
        ("ecdsa_brainpoolP512r1_sha512_p1363_test.json", .bp512r1),
    ]

    static let rsaFiles: [(String, JWSAlgorithm)] = [
        ("rsa_signature_2048_sha256_test.json", .rs256),
        ("rsa_signature_2048_sha384_test.json", .rs384),
        ("rsa_signature_2048_sha512_test.json", .rs512),
        ("rsa_pss_2048_sha256_mgf1_32_test.json", .ps256),
        ("rsa_pss_2048_sha384_mgf1_48_test.json", .ps384),
        ("rsa_pss_4096_sha512_mgf1_64_test.json", .ps512),
        ("ed25519_test.json", .eddsa),
        ("ed448_test.json", .eddsa),
    ]

    /// Verifies every case with the group's DER key and, where the file has one, its JWK, and
    /// requires both to agree.
    @Test("ECDSA (raw r‖s), RSA PKCS#1 v1.5, RSA-PSS and EdDSA files", arguments: ecdsaFiles + rsaFiles)
    func publicKeySignatures(file: String, algorithm: JWSAlgorithm) throws {
        // The one acceptable case in the PKCS#1 files is a DigestInfo without its NULL parameter
        // (MissingNull). Each message has exactly one valid PKCS#1 v1.5 signature; we reject it.
        try Wycheproof.run(file, acceptable: { _ in .mustReject }) { testCase in
            let derKey = try JWK(publicKeyDER: testCase.groupHex("publicKeyDer"))
            let signature = testCase.hex("sig"), message = testCase.hex("msg")
            let outcome = Outcome.of { try derKey.verify(signature: signature, message: message, algorithm: algorithm) }
            if let jwkObject = testCase.group["publicKeyJwk"]?.objectValue {
                let jwk = try JWK(object: jwkObject)
                let jwkOutcome = Outcome.of { try jwk.verify(signature: signature, message: message, algorithm: algorithm) }
                #expect((jwkOutcome == .accepted) == (outcome == .accepted), "\(testCase.label): JWK and DER keys disagree")
            }
            return outcome
        }
    }

    /// Every library that serves a scheme (OpenSSL, BoringSSL, libsodium) verifies each case of its
    /// files, and all must agree with each other and with the file, whichever the engine prefers:
    /// a key one library refuses falls to another, so each must be right on its own.
    @Test("every signature library agrees on every case", arguments: ecdsaFiles + rsaFiles)
    func librariesAgree(file: String, algorithm: JWSAlgorithm) throws {
        var servedBy: Set<SignatureLibrary> = []
        try Wycheproof.run(file, acceptable: { _ in .mustReject }) { testCase in
            guard let key = try? AsymmetricKey(publicKeyDER: testCase.groupHex("publicKeyDer")) else {
                return .rejected("no library reads the key")
            }
            let curve: OctetKeyCurve? = if case let .okp(okp) = key { okp.curve } else { nil }
            let scheme = try #require(algorithm.scheme(okpCurve: curve))
            let signature = testCase.hex("sig"), message = testCase.hex("msg")
            var outcomes: [(SignatureLibrary, Bool)] = []
            for library in SignatureLibrary.allCases {
                guard let verifier = try key.verifier(for: scheme, library: library) else { continue }
                outcomes.append((library, verifier.verify(signature: signature, message: message)))
                servedBy.insert(library)
            }
            let first = try #require(outcomes.first, "\(testCase.label): no library verifies \(scheme)")
            for (library, accepted) in outcomes.dropFirst() where accepted != first.1 {
                Issue.record("\(testCase.label): \(library.rawValue) \(accepted ? "accepts" : "rejects") what \(first.0.rawValue) \(first.1 ? "accepts" : "rejects")")
            }
            return first.1 ? .accepted : .rejected("\(first.0.rawValue) rejects it")
        }
        // The files the engine sends to BoringSSL or libsodium are checked there too, not only in OpenSSL.
        let preferred = Set(SignatureLibrary.preference(for: try #require(algorithm.scheme(okpCurve: file.hasPrefix("ed448") ? .ed448 : .ed25519))))
        #expect(servedBy == preferred, "\(file): served by \(servedBy.map(\.rawValue).sorted()), preferred \(preferred.map(\.rawValue).sorted())")
    }

    /// BoringSSL bounds an RSA exponent at 33 bits; OpenSSL does not. A key past the bound is
    /// still verified, by OpenSSL, rather than refused or failing at load.
    @Test("an RSA key BoringSSL refuses falls to OpenSSL")
    func rsaKeyBoringSSLRefuses() throws {
        let modulus = try RSAKey.generate(bits: 2048).modulus
        let usual = AsymmetricKey.rsa(try RSAKey(modulus: modulus, exponent: [0x01, 0x00, 0x01]))
        let wide = AsymmetricKey.rsa(try RSAKey(modulus: modulus, exponent: [0x04, 0x00, 0x00, 0x00, 0x01]))  // 2^34 + 1
        let scheme = SignatureScheme.rsaPKCS1(.sha256)
        #expect(try usual.verifier(for: scheme, library: .boringSSL) != nil)
        #expect(try wide.verifier(for: scheme, library: .boringSSL) == nil)
        let openSSL = try #require(try wide.verifier(for: scheme, library: .openSSL))
        let chosen = try wide.verifier(for: scheme)
        let signature = [UInt8](repeating: 0x5A, count: 256), message = Array("header.payload".utf8)
        #expect(type(of: chosen) == type(of: openSSL))
        #expect(!chosen.verify(signature: signature, message: message))
    }

    static let macFiles: [(String, DigestAlgorithm)] = [
        ("hmac_sha256_test.json", .sha256), ("hmac_sha384_test.json", .sha384), ("hmac_sha512_test.json", .sha512),
    ]

    /// Full-length tags go through the verifier JWS uses; truncated tags compare a prefix of the MAC.
    @Test("HMAC files", arguments: macFiles)
    func mac(file: String, digest: DigestAlgorithm) throws {
        try Wycheproof.run(file) { testCase in
            let key = try HMACKey(secret: testCase.hex("key"), digest: digest)
            let tagBytes = Int(testCase.group["tagSize"]?.numberValue?.int64Value ?? 0) / 8
            let tag = testCase.hex("tag"), message = testCase.hex("msg")
            guard tag.count == tagBytes else { return .rejected("tag length differs from the group's") }
            if tagBytes == digest.byteCount {
                return key.verify(signature: tag, message: message) ? .accepted : .rejected("MAC mismatch")
            }
            let full = key.authenticationCode(message)
            return ConstantTime.equals(Array(full.prefix(tagBytes)), tag) ? .accepted : .rejected("MAC mismatch")
        }
    }
}
