internal import COpenSSL

/// RSAES-OAEP key transport (RFC 8017 §7.1) with MGF1 over the same digest as the label hash:
/// SHA-1 for JWE `RSA-OAEP`, SHA-256 for `RSA-OAEP-256`.
enum RSAOAEP {
    /// Encrypts a short secret to an RSA public (or private) key.
    static func encrypt(_ plaintext: [UInt8], to key: EVPKey, digest: DigestAlgorithm, label: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try run(encrypt: true, plaintext, key: key, digest: digest, label: label)
    }

    /// Decrypts with an RSA private key; every padding or length problem is one `decryptionFailed`,
    /// so the failure says nothing about where the padding broke.
    static func decrypt(_ ciphertext: [UInt8], with key: EVPKey, digest: DigestAlgorithm, label: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard key.hasPrivateKey else { throw CryptoError(.keyMismatch, "RSA-OAEP decryption needs a private key") }
        return try run(encrypt: false, ciphertext, key: key, digest: digest, label: label)
    }

    private static func run(encrypt: Bool, _ input: [UInt8], key: EVPKey, digest: DigestAlgorithm, label: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw openSSLFailure(.cryptoFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let md = OpenSSLDigest.of(digest)
        var ok = (encrypt ? EVP_PKEY_encrypt_init(context) : EVP_PKEY_decrypt_init(context)) == 1
            && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_oaep_md(context, md.pointer) == 1
            && EVP_PKEY_CTX_set_rsa_mgf1_md(context, md.pointer) == 1
        if ok, !label.isEmpty {
            var labelCopy = label
            ok = labelCopy.withUnsafeMutableBytes { buffer in
                var params = [
                    OpenSSLParameter.octetString("oaep-label", buffer),
                    OpenSSLParameter.end,
                ]
                return EVP_PKEY_CTX_set_params(context, &params) == 1
            }
        }
        guard ok else { throw openSSLFailure(.keyMismatch, "the key cannot be used for RSA-OAEP") }
        var length = Int(EVP_PKEY_get_size(key.pointer))
        var output = [UInt8](repeating: 0, count: max(length, 1))
        let done = encrypt
            ? EVP_PKEY_encrypt(context, &output, &length, input, input.count)
            : EVP_PKEY_decrypt(context, &output, &length, input, input.count)
        guard done == 1 else {
            drainOpenSSLErrors()
            throw encrypt
                ? CryptoError(.keyInvalid, "RSA-OAEP encryption failed (the plaintext may be too long for the key)")
                : CryptoError(.decryptionFailed, "RSA-OAEP decryption failed")
        }
        return Array(output.prefix(length))
    }
}
