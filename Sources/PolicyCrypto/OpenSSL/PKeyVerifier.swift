internal import COpenSSL

/// Verifies RSA (PKCS#1 v1.5 and PSS) and ECDSA signatures over a pre-computed digest, with a
/// pool of contexts that were initialised once for this key, padding and digest.
final class PKeyVerifier: SignatureVerifier, @unchecked Sendable {
    private let key: EVPKey
    private let digest: OpenSSLDigest
    private let scheme: SignatureScheme
    private let pool: ContextPool

    init(key: EVPKey, scheme: SignatureScheme) throws(CryptoError) {
        let digestAlgorithm: DigestAlgorithm
        switch scheme {
        case let .rsaPKCS1(d), let .rsaPSS(d), let .ecdsa(_, d): digestAlgorithm = d
        case .eddsa, .hmac: preconditionFailure("PKeyVerifier serves RSA and ECDSA only")
        }
        self.key = key
        self.scheme = scheme
        let digest = OpenSSLDigest.of(digestAlgorithm)
        self.digest = digest
        pool = ContextPool(
            make: { PKeyVerifier.makeContext(key.pointer, scheme: scheme, digest: digest) },
            free: { EVP_PKEY_CTX_free($0) }
        )
        // Make one context now, so a key OpenSSL cannot use fails at load, not per token.
        guard pool.withContext({ _ in true }) != nil else {
            throw openSSLFailure(.keyInvalid, "the key cannot verify \(scheme) signatures")
        }
    }

    private static func makeContext(_ pkey: OpaquePointer, scheme: SignatureScheme, digest: OpenSSLDigest) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
        var ok = EVP_PKEY_verify_init(context) == 1
        ok = ok && EVP_PKEY_CTX_set_signature_md(context, digest.pointer) == 1
        switch scheme {
        case .rsaPKCS1:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        case .rsaPSS:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
            ok = ok && EVP_PKEY_CTX_set_rsa_mgf1_md(context, digest.pointer) == 1
            ok = ok && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(digest.byteCount)) == 1
        default:
            break
        }
        guard ok else {
            drainOpenSSLErrors()
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digest.byteCount) { hash in
            guard digest.hash(message, into: hash) else { return false }
            let hashBytes = UnsafeBufferPointer(hash)
            if case let .ecdsa(curve, _) = scheme {
                return ECDSASignatureEncoding.withDER(fromRaw: signature, coordinateByteCount: curve.coordinateByteCount) { der in
                    verifyDigest(hashBytes, der)
                } ?? false
            }
            return verifyDigest(hashBytes, signature)
        }
    }

    private func verifyDigest(_ hash: UnsafeBufferPointer<UInt8>, _ signature: UnsafeRawBufferPointer) -> Bool {
        let result = pool.withContext { context in
            EVP_PKEY_verify(
                context,
                signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                hash.baseAddress, hash.count
            )
        }
        guard result == 1 else {
            drainOpenSSLErrors()
            return false
        }
        return true
    }
}

/// Converts between JOSE's raw r‖s ECDSA signatures and the DER form OpenSSL speaks.
enum ECDSASignatureEncoding {
    /// Calls `body` with the DER `SEQUENCE { INTEGER r, INTEGER s }` of a raw signature of exactly
    /// twice the coordinate length, written on the stack; nil for any other length (a DER
    /// signature in a JWS is therefore never accepted).
    static func withDER<Result>(fromRaw raw: UnsafeRawBufferPointer, coordinateByteCount: Int,
                                _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard raw.count == 2 * coordinateByteCount, coordinateByteCount > 0 else { return nil }
        let r = DERInteger(UnsafeRawBufferPointer(rebasing: raw[0..<coordinateByteCount]))
        let s = DERInteger(UnsafeRawBufferPointer(rebasing: raw[coordinateByteCount...]))
        // Two integers of at most a pad byte, two of tag and length and the coordinate, in a
        // sequence of at most four of tag and length.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * coordinateByteCount + 12) { buffer in
            var writer = DERWriter(buffer)
            writer.byte(0x30)
            writer.length(r.encodedCount + s.encodedCount)
            writer.integer(r)
            writer.integer(s)
            return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<writer.count])))
        }
    }

    /// An unsigned big-endian integer as DER writes it: without its leading zeros (one kept),
    /// and after a zero byte when its high bit is set, which would make it negative.
    private struct DERInteger {
        /// The magnitude's bytes, leading zeros dropped.
        let magnitude: UnsafeRawBufferPointer.SubSequence
        let padded: Bool

        init(_ bytes: UnsafeRawBufferPointer) {
            var start = 0
            while start < bytes.count - 1, bytes[start] == 0 { start += 1 }
            magnitude = bytes[start...]
            padded = bytes[start] & 0x80 != 0
        }

        /// The content's length: the magnitude and the pad byte.
        var contentCount: Int { magnitude.count + (padded ? 1 : 0) }
        /// The whole INTEGER's length: tag, length and content.
        var encodedCount: Int { 1 + DERWriter.lengthCount(contentCount) + contentCount }
    }

    /// Writes DER into a buffer large enough for what is written.
    private struct DERWriter {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
            self.buffer = buffer
        }

        mutating func byte(_ value: UInt8) {
            buffer[count] = value
            count += 1
        }

        /// A definite length, short or long form.
        mutating func length(_ length: Int) {
            if length < 0x80 {
                byte(UInt8(length))
            } else if length <= 0xFF {
                byte(0x81)
                byte(UInt8(length))
            } else {
                byte(0x82)
                byte(UInt8(length >> 8))
                byte(UInt8(length & 0xFF))
            }
        }

        /// The bytes `length(_:)` writes for `length`.
        static func lengthCount(_ length: Int) -> Int {
            length < 0x80 ? 1 : length <= 0xFF ? 2 : 3
        }

        mutating func integer(_ integer: DERInteger) {
            byte(0x02)
            length(integer.contentCount)
            if integer.padded { byte(0) }
            for value in integer.magnitude { byte(value) }
        }
    }

    /// The raw r‖s form of a DER signature OpenSSL produced, each padded to the coordinate length.
    static func raw(fromDER der: [UInt8], coordinateByteCount: Int) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, der.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else { return nil }
            var output = [UInt8](repeating: 0, count: 2 * coordinateByteCount)
            let width = Int32(coordinateByteCount)
            let ok = output.withUnsafeMutableBufferPointer { out in
                BN_bn2binpad(r, out.baseAddress, width) == width
                    && BN_bn2binpad(s, out.baseAddress! + coordinateByteCount, width) == width
            }
            return ok ? output : nil
        }
    }
}
