internal import COpenSSL

/// One `EVP_MD` fetched from the default provider, kept for the life of the process.
///
/// Fetching is a provider lookup with locking inside OpenSSL; doing it once per algorithm, not
/// once per token, is one of the things that keeps verification at the primitive's speed.
final class OpenSSLDigest: @unchecked Sendable {
    let pointer: OpaquePointer
    let byteCount: Int
    /// Reused digest contexts: `EVP_Digest` allocates and frees one per call, which costs more
    /// than hashing a token's signing input.
    private let contexts: ContextPool

    private init(name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            preconditionFailure("OpenSSL has no \(name) digest: the library is not usable")
        }
        pointer = md
        byteCount = Int(EVP_MD_get_size(md))
        contexts = ContextPool(make: { EVP_MD_CTX_new() }, free: { EVP_MD_CTX_free($0) })
    }

    static let sha1 = OpenSSLDigest(name: "SHA1")
    static let sha256 = OpenSSLDigest(name: "SHA256")
    static let sha384 = OpenSSLDigest(name: "SHA384")
    static let sha512 = OpenSSLDigest(name: "SHA512")

    static func of(_ algorithm: DigestAlgorithm) -> OpenSSLDigest {
        switch algorithm {
        case .sha1: sha1
        case .sha256: sha256
        case .sha384: sha384
        case .sha512: sha512
        }
    }

    /// The OpenSSL name, as the PSS, OAEP and KDF parameters want it.
    var name: String {
        String(cString: EVP_MD_get0_name(pointer))
    }

    func hash(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { out, written in
            precondition(hash(data, into: out), "hashing failed for a fetched digest")
            written = byteCount
        }
    }

    /// Hashes `data` into `out`, which holds `byteCount` bytes; false only if OpenSSL fails.
    func hash(_ data: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let ok = contexts.withContext { context in
            var length: UInt32 = 0
            return EVP_DigestInit_ex2(context, pointer, nil) == 1
                && EVP_DigestUpdate(context, data.baseAddress, data.count) == 1
                && EVP_DigestFinal_ex(context, out.baseAddress, &length) == 1
        }
        guard ok == true else {
            drainOpenSSLErrors()
            return false
        }
        return true
    }
}

extension DigestAlgorithm {
    /// Hashes bytes with this algorithm.
    public func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        let digest = OpenSSLDigest.of(self)
        if let result = data.withContiguousStorageIfAvailable({ digest.hash(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(data).withUnsafeBytes { digest.hash($0) }
    }

    /// Hashes `data` into `out`, which holds `byteCount` bytes: for digests taken on a hot path,
    /// where the result array of `hash(_:)` would be one more allocation per call.
    public func hash(_ data: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= byteCount, "a \(byteCount)-byte digest does not fit in \(out.count) bytes")
        let digest = OpenSSLDigest.of(self)
        precondition(digest.hash(data, into: out.bindMemory(to: UInt8.self)), "hashing failed for a fetched digest")
    }
}
