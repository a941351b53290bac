internal import COpenSSL

/// One `EVP_MD` fetched from the default provider, kept for the life of the process.
///
/// Fetching is a provider lookup with locking inside OpenSSL; doing it once per algorithm, not
/// once per token, is one of the things that keeps verification at the primitive's speed.
final class OpenSSLDigest: @unchecked Sendable {
    let pointer: OpaquePointer
    let byteCount: Int

    private init(name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            preconditionFailure("OpenSSL has no \(name) digest: the library is not usable")
        }
        pointer = md
        byteCount = Int(EVP_MD_get_size(md))
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
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(data.baseAddress, data.count, out.baseAddress, &length, pointer, nil)
        }
        precondition(ok == 1, "EVP_Digest failed for a fetched digest")
        return output
    }
}

extension DigestAlgorithm {
    /// Hashes bytes with this algorithm.
    package func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        let digest = OpenSSLDigest.of(self)
        if let result = data.withContiguousStorageIfAvailable({ digest.hash(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(data).withUnsafeBytes { digest.hash($0) }
    }
}
