internal import COpenSSL

/// Reading keys and certificates from PEM and DER.
extension EVPKey {
    /// Reads a PEM block: `PUBLIC KEY`, `PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY` or
    /// `CERTIFICATE` (whose subject public key is taken). Encrypted private keys are refused
    /// rather than prompting for a passphrase.
    static func fromPEM(_ pem: String) throws(CryptoError) -> EVPKey {
        guard let label = PEMLabel.first(in: pem) else {
            throw CryptoError(.keyInvalid, "no PEM block found (expected a line like -----BEGIN PUBLIC KEY-----)")
        }
        let bytes = Array(pem.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(CryptoError) -> EVPKey in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                throw openSSLFailure(.cryptoFailure, "out of memory")
            }
            defer { BIO_free(bio) }
            switch label {
            case "PUBLIC KEY":
                guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                    throw openSSLFailure(.keyInvalid, "the PUBLIC KEY block is not a valid SubjectPublicKeyInfo")
                }
                let parsed = EVPKey(takingOwnership: key, hasPrivateKey: false)
                try parsed.requireNamedCurve()
                return parsed
            case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
                let key = "".withCString { empty in
                    PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: empty))
                }
                guard let key else { throw openSSLFailure(.keyInvalid, "the \(label) block could not be read") }
                return EVPKey(takingOwnership: key, hasPrivateKey: true)
            case "CERTIFICATE":
                guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
                    throw openSSLFailure(.certificateInvalid, "the CERTIFICATE block is not a valid X.509 certificate")
                }
                return try X509Certificate(takingOwnership: certificate).publicKey()
            case "ENCRYPTED PRIVATE KEY":
                throw CryptoError(.keyUnsupported, "encrypted private keys are not supported; decrypt it first (openssl pkey -in key.pem -out plain.pem)")
            default:
                throw CryptoError(.keyUnsupported, "unsupported PEM block '\(label)' (expected PUBLIC KEY, PRIVATE KEY or CERTIFICATE)")
            }
        }
    }

    /// Reads a DER SubjectPublicKeyInfo.
    static func fromPublicDER(_ der: [UInt8]) throws(CryptoError) -> EVPKey {
        try der.withUnsafeBufferPointer { buffer throws(CryptoError) -> EVPKey in
            var cursor = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else {
                throw openSSLFailure(.keyInvalid, "not a DER SubjectPublicKeyInfo")
            }
            let consumed = buffer.baseAddress.map { cursor! - $0 } ?? 0
            guard consumed == buffer.count else {
                EVP_PKEY_free(key)
                throw CryptoError(.keyInvalid, "trailing bytes after the DER public key")
            }
            let parsed = EVPKey(takingOwnership: key, hasPrivateKey: false)
            try parsed.requireNamedCurve()
            return parsed
        }
    }

    /// Refuses EC keys that spell out their curve parameters instead of naming the curve
    /// (RFC 5480 §2.1.1 requires a named curve); such keys are how invalid-curve and
    /// modified-generator attacks are delivered.
    func requireNamedCurve() throws(CryptoError) {
        guard case .ec = kind else { return }
        if utf8Parameter("encoding") == "explicit" {
            throw CryptoError(.keyUnsupported, "EC keys with explicit curve parameters are not accepted; use a named curve")
        }
    }

    /// Reads a DER private key (PKCS#8, or the traditional RSA or EC forms).
    static func fromPrivateDER(_ der: [UInt8]) throws(CryptoError) -> EVPKey {
        try der.withUnsafeBufferPointer { buffer throws(CryptoError) -> EVPKey in
            var cursor = buffer.baseAddress
            guard let key = d2i_AutoPrivateKey(nil, &cursor, buffer.count) else {
                throw openSSLFailure(.keyInvalid, "not a DER private key")
            }
            return EVPKey(takingOwnership: key, hasPrivateKey: true)
        }
    }

    /// An EC private key from its scalar alone, for key agreement where the public half is not needed.
    static func ecPrivateScalar(curve: EllipticCurve, d: [UInt8]) throws(CryptoError) -> EVPKey {
        try fromData(typeName: "EC", bigNumbers: [("priv", d)], strings: [("group", curve.openSSLGroupName)], isPrivate: true)
    }
}

/// Finds the label of the first PEM block in a text.
enum PEMLabel {
    static func first(in text: String) -> String? {
        let bytes = Array(text.utf8)
        let marker = Array("-----BEGIN ".utf8)
        let dashes = Array("-----".utf8)
        guard let begin = firstIndex(of: marker, in: bytes, from: 0) else { return nil }
        let labelStart = begin + marker.count
        guard let end = firstIndex(of: dashes, in: bytes, from: labelStart) else { return nil }
        return String(decoding: bytes[labelStart..<end], as: UTF8.self)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// One parsed X.509 certificate, owning its OpenSSL `X509`.
public final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// Parses one DER certificate (as carried, base64-encoded, in a JWK's or header's `x5c`).
    public convenience init(der: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            if cursor! - buffer.baseAddress! != buffer.count {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let parsed else { throw openSSLFailure(.certificateInvalid, "not a DER X.509 certificate") }
        self.init(takingOwnership: parsed)
    }

    /// The certificate's subject public key.
    public func subjectPublicKey() throws(CryptoError) -> AsymmetricKey {
        try AsymmetricKey(evp: publicKey())
    }

    func publicKey() throws(CryptoError) -> EVPKey {
        guard let key = X509_get_pubkey(pointer) else {
            throw openSSLFailure(.certificateInvalid, "the certificate's public key is unreadable or unsupported")
        }
        return EVPKey(takingOwnership: key, hasPrivateKey: false)
    }

    /// The subject distinguished name in OpenSSL's one-line form, for messages and listings.
    public var subject: String {
        guard let name = X509_get_subject_name(pointer), let line = X509_NAME_oneline(name, nil, 0) else { return "?" }
        defer { COpenSSL_free(line) }
        return String(cString: line)
    }

    /// The DER encoding.
    public var der: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(pointer, &output)
        guard length > 0, let output else { return [] }
        defer { COpenSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}

extension EVPKey {
    /// The DER SubjectPublicKeyInfo of this key's public half.
    func publicDER() throws(CryptoError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pointer, &output)
        guard length > 0, let output else { throw openSSLFailure(.cryptoFailure, "could not encode the public key") }
        defer { COpenSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
