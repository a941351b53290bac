internal import COpenSSL

/// An HMAC secret bound to one digest (RFC 2104): the digest's state after absorbing the key's
/// inner pad and after its outer pad, computed once; each tag starts from copies of the two.
///
/// A tag then costs the hash work alone, with no lock and no allocation: OpenSSL 3's `EVP_MAC`
/// re-initialised with its key duplicates two digest contexts on the heap per tag, which cost an
/// HS256 token about 2,000 instructions and two `malloc`s besides hashing (Benchmarks
/// `instructions`). The states are SHA-1/SHA-2's own, hashed by OpenSSL's (SHA-NI) code; the
/// Wycheproof HMAC vectors check the construction.
public final class HMACKey: SignatureVerifier, SignatureSigner, @unchecked Sendable {
    /// The digest the MAC is computed with.
    public let digest: DigestAlgorithm
    /// The pads' states, in the one field of the digest's family: a field read in place for
    /// each token, where an enum's case bound to a local retained and released the key (one
    /// key shared by every worker, so an atomic pair on one cache line a token).
    private let sha1Pads: PaddedKey<SHA_CTX>?
    private let sha256Pads: PaddedKey<SHA256_CTX>?
    private let sha512Pads: PaddedKey<SHA512_CTX>?

    /// Prepares `secret` for HMAC with `digest`; any length is accepted here (the JOSE layer
    /// enforces RFC 7518's minimum). Throws nothing today: kept throwing for the callers that
    /// handle a key OpenSSL refuses.
    public init(secret: [UInt8], digest: DigestAlgorithm) throws(CryptoError) {
        self.digest = digest
        sha1Pads = digest == .sha1 ? PaddedKey(secret, .sha1) : nil
        sha256Pads = digest == .sha256 ? PaddedKey(secret, .sha256) : nil
        sha512Pads = switch digest {
        case .sha384: PaddedKey(secret, .sha384)
        case .sha512: PaddedKey(secret, .sha512)
        case .sha1, .sha256: nil
        }
    }

    /// Computes the HMAC of `message` into `output`, which holds at least the digest's length.
    private func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        if sha256Pads != nil {
            sha256Pads!.authenticate(message, into: output)
        } else if sha512Pads != nil {
            sha512Pads!.authenticate(message, into: output)
        } else {
            sha1Pads!.authenticate(message, into: output)
        }
    }

    /// The full-length HMAC of `message`.
    public func authenticationCode(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digest.byteCount) { buffer in
            authenticate(message, into: buffer)
            return Array(buffer)
        }
    }

    /// The full-length HMAC of `message`.
    public func authenticationCode(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { authenticationCode($0) }
    }

    /// Compares in constant time against a MAC computed on the stack: no allocation per token.
    public func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        let length = digest.byteCount
        guard signature.count == length else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { expected in
            authenticate(message, into: expected)
            defer { OPENSSL_cleanse(expected.baseAddress, length) }
            return CRYPTO_memcmp(expected.baseAddress, signature.baseAddress, length) == 0
        }
    }

    /// The full-length tag of `message`; never throws.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        authenticationCode(message)
    }
}

/// A hash function through OpenSSL's low-level interface, whose state is a plain C struct.
private struct HashFunction<Context>: Sendable {
    /// A state with every byte zero, before `initialize`.
    let zeroed: @Sendable () -> Context
    let initialize: @Sendable (UnsafeMutablePointer<Context>) -> Int32
    let update: @Sendable (UnsafeMutablePointer<Context>, UnsafeRawPointer?, Int) -> Int32
    let finish: @Sendable (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Context>) -> Int32
    /// The block the key is padded to (RFC 2104's B).
    let blockSize: Int
    /// The hash's length (RFC 2104's L).
    let outputCount: Int
}

private extension HashFunction<SHA_CTX> {
    static let sha1 = HashFunction(zeroed: { SHA_CTX() }, initialize: { SHA1_Init($0) }, update: { SHA1_Update($0, $1, $2) }, finish: { SHA1_Final($0, $1) },
                                   blockSize: 64, outputCount: 20)
}

private extension HashFunction<SHA256_CTX> {
    static let sha256 = HashFunction(zeroed: { SHA256_CTX() }, initialize: { SHA256_Init($0) }, update: { SHA256_Update($0, $1, $2) },
                                     finish: { SHA256_Final($0, $1) }, blockSize: 64, outputCount: 32)
}

private extension HashFunction<SHA512_CTX> {
    static let sha384 = HashFunction(zeroed: { SHA512_CTX() }, initialize: { SHA384_Init($0) }, update: { SHA384_Update($0, $1, $2) },
                                     finish: { SHA384_Final($0, $1) }, blockSize: 128, outputCount: 48)
    static let sha512 = HashFunction(zeroed: { SHA512_CTX() }, initialize: { SHA512_Init($0) }, update: { SHA512_Update($0, $1, $2) },
                                     finish: { SHA512_Final($0, $1) }, blockSize: 128, outputCount: 64)
}

/// A key's inner and outer pads absorbed by `function` (RFC 2104 §2): H(K ⊕ opad, H(K ⊕ ipad, m))
/// then needs only the message and the inner hash hashed. A class, so that the states are
/// cleared and freed once, when the key goes.
private final class PaddedKey<Context> {
    let function: HashFunction<Context>
    private let inner: UnsafeMutablePointer<Context>
    private let outer: UnsafeMutablePointer<Context>

    init(_ secret: [UInt8], _ function: HashFunction<Context>) {
        self.function = function
        inner = .allocate(capacity: 1)
        outer = .allocate(capacity: 1)
        // A key longer than the block is replaced by its hash; a shorter one is padded with zeros.
        var key = [UInt8](repeating: 0, count: function.blockSize)
        if secret.count > function.blockSize {
            var context = function.zeroed()
            _ = function.initialize(&context)
            _ = secret.withUnsafeBytes { function.update(&context, $0.baseAddress, $0.count) }
            _ = key.withUnsafeMutableBufferPointer { function.finish($0.baseAddress, &context) }
            OPENSSL_cleanse(&context, MemoryLayout<Context>.size)
        } else {
            key.replaceSubrange(0..<secret.count, with: secret)
        }
        for (state, pad) in [(inner, UInt8(0x36)), (outer, UInt8(0x5C))] {
            var padded = key.map { $0 ^ pad }
            state.initialize(to: function.zeroed())
            _ = function.initialize(state)
            _ = function.update(state, padded, padded.count)
            OPENSSL_cleanse(&padded, padded.count)
        }
        OPENSSL_cleanse(&key, key.count)
    }

    /// Writes the HMAC of `message` to `output`, which holds at least `function.outputCount`.
    func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count >= function.outputCount, "an HMAC output buffer is shorter than the digest")
        var context = inner.pointee
        _ = function.update(&context, message.baseAddress, message.count)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: function.outputCount) { innerHash in
            _ = function.finish(innerHash.baseAddress, &context)
            context = outer.pointee
            _ = function.update(&context, innerHash.baseAddress, function.outputCount)
            _ = function.finish(output.baseAddress, &context)
            OPENSSL_cleanse(innerHash.baseAddress, function.outputCount)
        }
        OPENSSL_cleanse(&context, MemoryLayout<Context>.size)
    }

    deinit {
        OPENSSL_cleanse(inner, MemoryLayout<Context>.size)
        OPENSSL_cleanse(outer, MemoryLayout<Context>.size)
        inner.deinitialize(count: 1).deallocate()
        outer.deinitialize(count: 1).deallocate()
    }
}
