internal import COpenSSL

/// The process-wide HMAC implementation, fetched once from OpenSSL's default provider.
private final class FetchedMAC: @unchecked Sendable {
    let pointer: OpaquePointer
    static let hmac = FetchedMAC()

    private init() {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            preconditionFailure("OpenSSL has no HMAC implementation: the library is not usable")
        }
        pointer = mac
    }
}

/// An HMAC secret bound to one digest, with contexts that absorbed the key once.
///
/// Re-initialising an HMAC context with the key it already holds only resets it, so each tag
/// costs the hash work and nothing more.
public final class HMACKey: SignatureVerifier, SignatureSigner, @unchecked Sendable {
    /// The digest the MAC is computed with.
    public let digest: DigestAlgorithm
    private let pool: ContextPool

    /// Prepares `secret` for HMAC with `digest`; any length is accepted here (the JOSE layer
    /// enforces RFC 7518's minimum).
    public init(secret: [UInt8], digest: DigestAlgorithm) throws(CryptoError) {
        self.digest = digest
        let digestName = OpenSSLDigest.of(digest).name
        pool = ContextPool(
            make: { HMACKey.makeContext(secret: secret, digestName: digestName) },
            free: { EVP_MAC_CTX_free($0) }
        )
        guard pool.withContext({ _ in true }) != nil else {
            throw openSSLFailure(.keyInvalid, "OpenSSL refused the HMAC key")
        }
    }

    private static func makeContext(secret: [UInt8], digestName: String) -> OpaquePointer? {
        guard let context = EVP_MAC_CTX_new(FetchedMAC.hmac.pointer) else { return nil }
        let ok = digestName.withCString { name in
            var params = [
                OpenSSLParameter.utf8String("digest", name),
                OpenSSLParameter.end,
            ]
            // An empty secret is legal HMAC; OpenSSL wants a non-null pointer for it.
            return (secret.isEmpty ? [0] : secret).withUnsafeBufferPointer { key in
                EVP_MAC_init(context, key.baseAddress, secret.count, &params) == 1
            }
        }
        guard ok else {
            drainOpenSSLErrors()
            EVP_MAC_CTX_free(context)
            return nil
        }
        return context
    }

    /// Computes the HMAC of `message` into `output`, which holds at least the digest's length.
    private func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        let ok = pool.withContext { context -> Bool in
            var length = 0
            return EVP_MAC_init(context, nil, 0, nil) == 1
                && EVP_MAC_update(context, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
                && EVP_MAC_final(context, output.baseAddress, &length, output.count) == 1
        }
        precondition(ok == true, "HMAC failed on a prepared context")
    }

    /// The full-length HMAC of `message`.
    public func authenticationCode(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digest.byteCount) { buffer, count in
            authenticate(message, into: buffer)
            count = digest.byteCount
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
            return CRYPTO_memcmp(expected.baseAddress, signature.baseAddress, length) == 0
        }
    }

    /// The full-length tag of `message`; never throws.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        authenticationCode(message)
    }
}
