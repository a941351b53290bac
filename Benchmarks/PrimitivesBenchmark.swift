import COpenSSL
import CSodium
import Crypto
import CryptoExtras
import Foundation
import PolicyCrypto
import PolicyJOSE

/// `Benchmarks primitives`: signature verification alone, one thread, on a real JWS signing
/// input, through every stack the project can link (OpenSSL 3's EVP, BoringSSL through
/// swift-crypto, libsodium) and through PolicyCrypto, the verifier the engine calls.
///
/// Each loop checks every result, and a signature with one bit flipped is refused by each stack
/// before its loop starts, so no row is fast by failing. The table decides which primitive
/// PolicyCrypto uses per algorithm: the in-use row should be the fastest, or within noise of it.
///
/// Where the batch benchmark's Rust peer builds, a last row per algorithm is ring 0.16 through
/// `jsonwebtoken` (`--primitive`), in its own process: the peer's signature cost, which no
/// Swift package here can link, and so no candidate for the in-use verdict.
enum PrimitivesBenchmark {
    struct Row {
        let algorithm: JWSAlgorithm
        let stack: String
        let rate: Double
        let inUse: Bool
        /// Whether the project could link the stack (ring, the peer's, it cannot).
        var linkable = true
        /// Whether the loop took `Sample.turnCount` distinct tokens in turn rather than one.
        var inTurn = false
    }

    static let ringName = "ring 0.16 via jsonwebtoken (Rust peer, not linkable)"
    static let inTurnSuffix = ", \(Sample.turnCount) tokens in turn"

    static let algorithms: [JWSAlgorithm] = [.rs256, .ps256, .es256, .es384, .es512, .eddsa, .hs256]

    /// The rows, and a note when the peer's rows are skipped.
    static func run(seconds: Double = 1) throws -> (rows: [Row], notes: [String]) {
        var rows: [Row] = []
        let peer = JsonwebtokenPeer.build()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("primitives-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for algorithm in algorithms {
            let sample = try Sample(algorithm)
            for stack in try stacks(for: sample) {
                var tampered = sample.signature
                tampered[tampered.count / 2] ^= 0x10
                guard stack.verify(sample.signature), !stack.verify(tampered) else {
                    throw BenchmarkError("\(stack.name) judged a \(algorithm.rawValue) signature wrongly before its loop")
                }
                let signature = sample.signature
                // The best of three: single loops on these machines move by more than the stacks differ.
                let rate = (0..<3).map { _ in
                    measureRate(seconds: seconds / 3) {
                        guard stack.verify(signature) else { fatalError("\(stack.name) refused a valid \(algorithm.rawValue) signature") }
                    }
                }.max()!
                rows.append(Row(algorithm: algorithm, stack: stack.name, rate: rate, inUse: stack.name == inUseName))
            }
            rows.append(Row(algorithm: algorithm, stack: inUseName + inTurnSuffix, rate: try inUseInTurn(sample, seconds: seconds), inUse: false, inTurn: true))
            if case let .success(peer) = peer, JsonwebtokenPeer.algorithms.contains(algorithm) {
                let jwks = folder.appendingPathComponent("\(algorithm.rawValue).jwks.json")
                let secret = sample.key.secretBytes.map(Base64URL.encode) ?? ""
                if secret.isEmpty {
                    let set = JSONValue.object(JSONObject(["keys": .array([.object(try sample.key.publicKey.publicJSON())])]))
                    try Data(set.serializedBytes()).write(to: jwks)
                }
                let rate = try JsonwebtokenPeer.primitiveRate(peer, algorithm: algorithm, tokens: [sample.token], jwks: jwks, secret: secret)
                rows.append(Row(algorithm: algorithm, stack: ringName, rate: rate, inUse: false, linkable: false))
                let inTurn = try JsonwebtokenPeer.primitiveRate(peer, algorithm: algorithm, tokens: sample.inTurn.map(\.token), jwks: jwks, secret: secret)
                rows.append(Row(algorithm: algorithm, stack: ringName + inTurnSuffix, rate: inTurn, inUse: false, linkable: false, inTurn: true))
            }
        }
        let notes = if case let .failure(reason) = peer { ["The ring rows are skipped: \(reason)"] } else { [String]() }
        return (rows, notes)
    }

    static let inUseName = "PolicyCrypto (in use)"

    /// The verifier in use over `sample`'s tokens in turn: a log's tokens differ in every
    /// signature, and a loop over one lets the branch predictor learn a variable-time
    /// algorithm's path (an ECDSA inverse, a window's digits), which a log never does.
    private static func inUseInTurn(_ sample: Sample, seconds: Double) throws -> Double {
        let verifier = try sample.verifier()
        let tokens = sample.inTurn
        for token in tokens {
            guard verifier.verifies(token.signature, token.message) else {
                throw BenchmarkError("the verifier in use refused one of the \(sample.algorithm.rawValue) tokens in turn")
            }
        }
        var next = 0
        return (0..<3).map { _ in
            measureRate(seconds: seconds / 3) {
                let token = tokens[next]
                next = next + 1 == tokens.count ? 0 : next + 1
                guard verifier.verifies(token.signature, token.message) else { fatalError("the verifier in use refused a valid \(sample.algorithm.rawValue) signature") }
            }
        }.max()!
    }

    static func table(_ rows: [Row]) -> String {
        var lines = ["| alg | stack | verifies/s | of the fastest |", "|---|---|---:|---:|"]
        var verdicts: [String] = []
        for algorithm in algorithms {
            let own = rows.filter { $0.algorithm == algorithm }
            guard let fastest = own.max(by: { $0.rate < $1.rate }) else { continue }
            for row in own {
                let name = row.inUse ? "**\(row.stack)**" : row.stack
                lines.append("| \(algorithm.rawValue) | \(name) | \(Int(row.rate)) | \(String(format: "%.2f", row.rate / fastest.rate)) |")
            }
            let others = own.filter { !$0.inUse && $0.linkable && !$0.inTurn }
            if let inUse = own.first(where: \.inUse), let best = others.max(by: { $0.rate < $1.rate }) {
                let share = inUse.rate / best.rate
                var verdict = "- \(algorithm.rawValue): in use \(Int(inUse.rate))/s, \(String(format: "%.2f", share)) of the fastest other stack "
                    + "(\(best.stack)) — \(share >= 1.05 ? "fastest" : share >= 0.95 ? "fastest within noise" : "SLOWER")"
                if let ring = own.first(where: { !$0.linkable && !$0.inTurn }) {
                    verdict += "; \(String(format: "%.2f", inUse.rate / ring.rate)) of ring's"
                }
                if let ours = own.first(where: { $0.inTurn && $0.linkable }), let ring = own.first(where: { $0.inTurn && !$0.linkable }) {
                    verdict += "; \(String(format: "%.2f", ours.rate / ring.rate)) of ring's with \(Sample.turnCount) tokens in turn"
                }
                verdicts.append(verdict)
            }
        }
        return (lines + [""] + verdicts).joined(separator: "\n")
    }

    /// A key, a compact JWS signed with it over claims like a token log's, and the parts a
    /// primitive sees: the signing input and the raw signature.
    struct Sample {
        /// A token, and what a primitive sees of it.
        struct Token {
            /// The compact JWS.
            let token: String
            let message: [UInt8]
            let signature: [UInt8]
        }

        /// How many distinct tokens the in-turn rows take one after another.
        static let turnCount = 64

        let algorithm: JWSAlgorithm
        let key: JWK
        /// The compact JWS.
        var token: String { inTurn[0].token }
        var message: [UInt8] { inTurn[0].message }
        var signature: [UInt8] { inTurn[0].signature }
        /// `turnCount` tokens of the key, each with its own `jti` (the first is `token`).
        let inTurn: [Token]

        init(_ algorithm: JWSAlgorithm) throws {
            self.algorithm = algorithm
            let key = try JWK.generate(for: algorithm, kid: "bench")
            self.key = key
            inTurn = try (0..<Self.turnCount).map { index in
                let claims = JSONObject([
                    "iss": .string(BatchBenchmark.issuer), "sub": .string("user-42"), "aud": .string(BatchBenchmark.audience),
                    "iat": .number(.integer(Int64(BatchBenchmark.now - 600))), "exp": .number(.integer(Int64(BatchBenchmark.now + 3000))),
                    "jti": .string("jti-\(42 + index)"), "scope": .string("openid profile orders:read"),
                ])
                let token = try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(),
                                                header: JSONObject(["typ": .string("JWT"), "kid": .string("bench")]), algorithm: algorithm, key: key)
                let jws = try CompactJWS(token)
                return Token(token: token, message: Array(jws.signingInput), signature: Array(jws.signature))
            }
        }

        /// What the engine calls: the verifier PolicyCrypto prepares once per key.
        func verifier() throws -> any SignatureVerifier {
            if let secret = key.secretBytes { return try HMACKey(secret: secret, digest: .sha256) }
            return try key.asymmetricKey!.verifier(for: algorithm.scheme(okpCurve: algorithm == .eddsa ? .ed25519 : nil)!)
        }
    }

    private static func stacks(for sample: Sample) throws -> [Stack] {
        let message = sample.message
        var stacks: [Stack] = []
        let verifier = try sample.verifier()
        stacks.append(Stack(name: inUseName) { signature in verifier.verifies(signature, message) })
        switch sample.algorithm {
        case .hs256:
            let secret = sample.key.secretBytes!
            stacks.append(OpenSSLStack.hmac(secret: secret, message: message))
            stacks.append(BoringSSLStack.hmacPrepared(secret: secret, message: message))
            stacks.append(BoringSSLStack.hmacOneShot(secret: secret, message: message))
            stacks.append(SodiumStack.hmac(secret: secret, message: message))
        case .eddsa:
            guard case let .okp(key) = sample.key.asymmetricKey else { throw BenchmarkError("an EdDSA sample without an OKP key") }
            stacks.append(try OpenSSLStack.digestVerify(sample, message: message))
            stacks.append(try BoringSSLStack.ed25519(publicKey: key.publicKey, message: message))
            stacks.append(SodiumStack.ed25519(publicKey: key.publicKey, message: message))
        default:
            stacks.append(try OpenSSLStack.digestVerify(sample, message: message))
            stacks.append(try BoringSSLStack.signature(sample, message: message))
        }
        return stacks
    }
}

/// OpenSSL 3 through EVP, as a program would call it with the key built once.
private enum OpenSSLStack {
    /// `EVP_DigestVerifyInit` and `EVP_DigestVerify` per signature on one reused context (ECDSA
    /// signatures converted to DER once, before the loop).
    static func digestVerify(_ sample: PrimitivesBenchmark.Sample, message: [UInt8]) throws -> Stack {
        let der = try sample.key.asymmetricKey!.publicKeyDER()
        var cursor: UnsafePointer<UInt8>? = nil
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw BenchmarkError("OpenSSL could not read the \(sample.algorithm.rawValue) key") }
        let digest: OpaquePointer? = switch sample.algorithm {
        case .eddsa: nil
        case .es384: EVP_sha384()
        case .es512: EVP_sha512()
        default: EVP_sha256()
        }
        let context = EVP_MD_CTX_new()
        let algorithm = sample.algorithm
        let coordinate = algorithm == .es256 ? 32 : algorithm == .es384 ? 48 : 66
        let isECDSA = [.es256, .es384, .es512].contains(algorithm)
        return Stack(name: "OpenSSL 3 EVP_DigestVerify") { raw in
            let signature = isECDSA ? derSignature(raw, coordinate: coordinate) : raw
            var keyContext: OpaquePointer? = nil
            guard EVP_DigestVerifyInit(context, &keyContext, digest, nil, key) == 1 else { return false }
            if algorithm == .ps256 {
                guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                      EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, 32) == 1 else { return false }
            }
            let ok = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
            if !ok { ERR_clear_error() }
            return ok
        }
    }

    /// A JOSE r‖s signature as the DER OpenSSL reads.
    private static func derSignature(_ raw: [UInt8], coordinate: Int) -> [UInt8] {
        guard let signature = ECDSA_SIG_new() else { return [] }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(coordinate), nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + coordinate, Int32(coordinate), nil) }
        ECDSA_SIG_set0(signature, r, s)
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_ECDSA_SIG(signature, &output)
        defer { CRYPTO_free(output, #file, #line) }
        return count > 0 ? Array(UnsafeBufferPointer(start: output, count: Int(count))) : []
    }

    /// HMAC-SHA-256 through `EVP_MAC`, one context keyed once and re-initialised per tag, compared
    /// in constant time.
    static func hmac(secret: [UInt8], message: [UInt8]) -> Stack {
        let context = ReferenceRates.opensslHMACSHA256Context(key: secret)
        var output = [UInt8](repeating: 0, count: 32)
        return Stack(name: "OpenSSL 3 EVP_MAC, keyed once") { signature in
            var length = 0
            EVP_MAC_init(context, nil, 0, nil)
            EVP_MAC_update(context, message, message.count)
            EVP_MAC_final(context, &output, &length, output.count)
            return signature.count == length && CRYPTO_memcmp(output, signature, length) == 0
        }
    }
}

/// BoringSSL through swift-crypto's public API (`Crypto`, `CryptoExtras`).
private enum BoringSSLStack {
    static func signature(_ sample: PrimitivesBenchmark.Sample, message: [UInt8]) throws -> Stack {
        let der = try sample.key.asymmetricKey!.publicKeyDER()
        let name = "BoringSSL (swift-crypto)"
        switch sample.algorithm {
        case .rs256, .ps256:
            let key = try _RSA.Signing.PublicKey(derRepresentation: der)
            let padding: _RSA.Signing.Padding = sample.algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
            return Stack(name: name) { signature in
                key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message), padding: padding)
            }
        case .es256:
            let key = try P256.Signing.PublicKey(derRepresentation: der)
            return Stack(name: name) { signature in
                guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
                return key.isValidSignature(parsed, for: SHA256.hash(data: message))
            }
        case .es384:
            let key = try P384.Signing.PublicKey(derRepresentation: der)
            return Stack(name: name) { signature in
                guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
                return key.isValidSignature(parsed, for: SHA384.hash(data: message))
            }
        case .es512:
            let key = try P521.Signing.PublicKey(derRepresentation: der)
            return Stack(name: name) { signature in
                guard let parsed = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
                return key.isValidSignature(parsed, for: SHA512.hash(data: message))
            }
        default:
            throw BenchmarkError("no BoringSSL stack for \(sample.algorithm.rawValue)")
        }
    }

    static func ed25519(publicKey: [UInt8], message: [UInt8]) throws -> Stack {
        let key = try Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        return Stack(name: "BoringSSL (swift-crypto)") { signature in key.isValidSignature(signature, for: message) }
    }

    /// `HMAC<SHA256>` keyed once and copied per tag (the pads absorbed once, as PolicyCrypto does).
    static func hmacPrepared(secret: [UInt8], message: [UInt8]) -> Stack {
        let keyed = HMAC<SHA256>(key: SymmetricKey(data: secret))
        return Stack(name: "BoringSSL (swift-crypto), keyed once") { signature in
            var mac = keyed
            mac.update(data: message)
            return mac.finalize() == signature
        }
    }

    /// `HMAC<SHA256>.isValidAuthenticationCode`: the key's pads absorbed again per tag.
    static func hmacOneShot(secret: [UInt8], message: [UInt8]) -> Stack {
        let key = SymmetricKey(data: secret)
        return Stack(name: "BoringSSL (swift-crypto), one call") { signature in
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key)
        }
    }
}

/// libsodium 1.0.18, called directly.
private enum SodiumStack {
    static func ed25519(publicKey: [UInt8], message: [UInt8]) -> Stack {
        precondition(sodium_init() >= 0)
        return Stack(name: "libsodium") { signature in
            signature.count == 64 && crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
        }
    }

    /// `crypto_auth_hmacsha256` from a state keyed once and copied per tag.
    static func hmac(secret: [UInt8], message: [UInt8]) -> Stack {
        precondition(sodium_init() >= 0)
        var keyed = crypto_auth_hmacsha256_state()
        crypto_auth_hmacsha256_init(&keyed, secret, secret.count)
        let prepared = keyed
        return Stack(name: "libsodium, keyed once") { signature in
            var state = prepared
            var output = [UInt8](repeating: 0, count: 32)
            crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
            crypto_auth_hmacsha256_final(&state, &output)
            return signature.count == 32 && sodium_memcmp(output, signature, 32) == 0
        }
    }
}

/// One stack's verification of one signature: called in the loop, must return true.
private struct Stack {
    let name: String
    let verify: (_ signature: [UInt8]) -> Bool
}

extension SignatureVerifier {
    /// `verify(signature:message:)` on arrays, as the benchmark's loops hold them.
    func verifies(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { s in message.withUnsafeBytes { m in verify(signature: s, message: m) } }
    }
}
