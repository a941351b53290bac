internal import COpenSSL

/// AES in the modes JWE uses — GCM, CBC with PKCS#7 padding, and RFC 3394 key wrap — with
/// each cipher fetched from OpenSSL once.
public enum AESCipher {
    private final class Fetched: @unchecked Sendable {
        let pointers: [String: OpaquePointer]
        init() {
            var pointers: [String: OpaquePointer] = [:]
            for mode in ["GCM", "CBC", "WRAP"] {
                for bits in [128, 192, 256] {
                    let name = "AES-\(bits)-\(mode)"
                    guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
                        preconditionFailure("OpenSSL has no \(name): the library is not usable")
                    }
                    pointers[name] = cipher
                }
            }
            self.pointers = pointers
        }
        static let shared = Fetched()
    }

    private static func cipher(_ mode: String, keyCount: Int) throws(CryptoError) -> OpaquePointer {
        guard [16, 24, 32].contains(keyCount) else {
            throw CryptoError(.keyInvalid, "an AES key is 16, 24 or 32 bytes, found \(keyCount)")
        }
        return Fetched.shared.pointers["AES-\(keyCount * 8)-\(mode)"]!
    }

    /// OpenSSL 3.0's GCM keeps at most 128 bytes of IV (GCM_IV_MAX_SIZE); JWE uses 12.
    static let maximumGCMIVByteCount = 128

    private static func checkGCMIV(_ iv: [UInt8]) throws(CryptoError) {
        guard !iv.isEmpty else { throw CryptoError(.decryptionFailed, "AES-GCM needs a non-empty IV") }
        guard iv.count <= maximumGCMIVByteCount else {
            throw CryptoError(.unsupportedParameter, "AES-GCM IV of \(iv.count) bytes exceeds the \(maximumGCMIVByteCount) bytes supported")
        }
    }

    private static func withContext<T>(_ body: (OpaquePointer) throws(CryptoError) -> T) throws(CryptoError) -> T {
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure(.cryptoFailure, "out of memory") }
        defer { EVP_CIPHER_CTX_free(context) }
        return try body(context)
    }

    // MARK: GCM

    /// Encrypts with AES-GCM; returns the ciphertext and the 16-byte tag.
    public static func gcmSeal(key: [UInt8], iv: [UInt8], aad: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        let cipher = try cipher("GCM", keyCount: key.count)
        try checkGCMIV(iv)
        return try withContext { context throws(CryptoError) in
            var output = [UInt8](repeating: 0, count: plaintext.count)
            var tag = [UInt8](repeating: 0, count: 16)
            var length: Int32 = 0
            var ok = EVP_EncryptInit_ex2(context, cipher, nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1
                && EVP_EncryptInit_ex2(context, nil, key, iv, nil) == 1
            if ok, !aad.isEmpty { ok = EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 }
            if ok, !plaintext.isEmpty { ok = EVP_EncryptUpdate(context, &output, &length, plaintext, Int32(plaintext.count)) == 1 }
            var finalLength: Int32 = 0
            ok = ok && output.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(context, $0.baseAddress! + Int(length), &finalLength) } == 1
            ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
            guard ok else { throw openSSLFailure(.cryptoFailure, "AES-GCM encryption failed") }
            return (output, tag)
        }
    }

    /// Decrypts and authenticates AES-GCM with a 16-byte tag; any mismatch is `decryptionFailed`.
    public static func gcmOpen(key: [UInt8], iv: [UInt8], aad: [UInt8], ciphertext: [UInt8], tag: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = try cipher("GCM", keyCount: key.count)
        try checkGCMIV(iv)
        guard tag.count == 16 else { throw CryptoError(.decryptionFailed, "AES-GCM tag must be 16 bytes, found \(tag.count)") }
        return try withContext { context throws(CryptoError) in
            var output = [UInt8](repeating: 0, count: ciphertext.count + 16)
            var length: Int32 = 0
            var ok = EVP_DecryptInit_ex2(context, cipher, nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1
                && EVP_DecryptInit_ex2(context, nil, key, iv, nil) == 1
            if ok, !aad.isEmpty { ok = EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 }
            length = 0
            if ok, !ciphertext.isEmpty { ok = EVP_DecryptUpdate(context, &output, &length, ciphertext, Int32(ciphertext.count)) == 1 }
            var expectedTag = tag
            ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &expectedTag) == 1
            var finalLength: Int32 = 0
            ok = ok && output.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(context, $0.baseAddress! + Int(length), &finalLength) } == 1
            guard ok else {
                drainOpenSSLErrors()
                throw CryptoError(.decryptionFailed, "AES-GCM authentication failed: the tag, IV, AAD or ciphertext was altered, or the key is wrong")
            }
            return Array(output.prefix(Int(length + finalLength)))
        }
    }

    // MARK: CBC

    /// Encrypts with AES-CBC and PKCS#7 padding.
    public static func cbcEncrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cbc(encrypt: true, key: key, iv: iv, input: plaintext)
    }

    /// Decrypts AES-CBC and removes PKCS#7 padding. Call it only after the MAC verified, so that
    /// padding errors are never observable (RFC 7518 §5.2.2.2).
    public static func cbcDecrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cbc(encrypt: false, key: key, iv: iv, input: ciphertext)
    }

    private static func cbc(encrypt: Bool, key: [UInt8], iv: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = try cipher("CBC", keyCount: key.count)
        guard iv.count == 16 else { throw CryptoError(.decryptionFailed, "AES-CBC IV must be 16 bytes, found \(iv.count)") }
        return try withContext { context throws(CryptoError) in
            var output = [UInt8](repeating: 0, count: input.count + 16)
            var length: Int32 = 0
            var finalLength: Int32 = 0
            let ok = EVP_CipherInit_ex2(context, cipher, key, iv, encrypt ? 1 : 0, nil) == 1
                && (input.isEmpty || EVP_CipherUpdate(context, &output, &length, input, Int32(input.count)) == 1)
                && output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress! + Int(length), &finalLength) } == 1
            guard ok else {
                drainOpenSSLErrors()
                throw CryptoError(.decryptionFailed, "AES-CBC \(encrypt ? "encryption" : "decryption") failed")
            }
            return Array(output.prefix(Int(length + finalLength)))
        }
    }

    // MARK: Key wrap

    /// Wraps a key of at least 16 bytes, a multiple of 8, with RFC 3394 AES key wrap.
    public static func wrap(key: [UInt8], keyToWrap: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard keyToWrap.count >= 16, keyToWrap.count % 8 == 0 else {
            throw CryptoError(.keyInvalid, "AES key wrap needs a key of at least 16 bytes in 8-byte blocks, found \(keyToWrap.count)")
        }
        return try keyWrap(encrypt: true, key: key, input: keyToWrap)
    }

    /// Unwraps and checks the integrity of an RFC 3394 wrapped key.
    ///
    /// Wrapped keys shorter than 24 bytes (an 8-byte key, which RFC 3394 allows but SP 800-38F
    /// does not) are refused: no JWE content key is that short.
    public static func unwrap(key: [UInt8], wrapped: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else {
            throw CryptoError(.decryptionFailed, "an AES-wrapped key is at least 24 bytes in 8-byte blocks, found \(wrapped.count)")
        }
        return try keyWrap(encrypt: false, key: key, input: wrapped)
    }

    private static func keyWrap(encrypt: Bool, key: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = try cipher("WRAP", keyCount: key.count)
        return try withContext { context throws(CryptoError) in
            var output = [UInt8](repeating: 0, count: input.count + 16)
            var length: Int32 = 0
            var finalLength: Int32 = 0
            let ok = EVP_CipherInit_ex2(context, cipher, key, nil, encrypt ? 1 : 0, nil) == 1
                && EVP_CipherUpdate(context, &output, &length, input, Int32(input.count)) == 1
                && output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress! + Int(length), &finalLength) } == 1
            guard ok, length > 0 else {
                drainOpenSSLErrors()
                throw CryptoError(.decryptionFailed, encrypt ? "AES key wrap failed" : "AES key unwrap failed: integrity check did not pass (wrong key or altered data)")
            }
            return Array(output.prefix(Int(length + finalLength)))
        }
    }
}
