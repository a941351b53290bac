internal import COpenSSL

/// The sole owner of one OpenSSL `EVP_PKEY`, freed in `deinit`.
///
/// A key becomes an `EVP_PKEY` once, when it is loaded; every operation afterwards borrows the
/// pointer. `EVP_PKEY` is reference-counted and safe to share between threads for verification.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Whether the key holds private material (it can sign, decrypt or agree keys).
    let hasPrivateKey: Bool

    init(takingOwnership pointer: OpaquePointer, hasPrivateKey: Bool) {
        self.pointer = pointer
        self.hasPrivateKey = hasPrivateKey
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The key's size in bits: the modulus for RSA, the group order for EC.
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// What kind of key this is, as far as the engine cares.
    var kind: AsymmetricKeyKind {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA: return .rsa
        case EVP_PKEY_EC:
            guard let name = utf8Parameter("group"), let curve = EllipticCurve(openSSLGroupName: name) else {
                return .unsupported("EC key on an unnamed or unsupported curve")
            }
            return .ec(curve)
        case EVP_PKEY_ED25519: return .okp(.ed25519)
        case EVP_PKEY_ED448: return .okp(.ed448)
        case EVP_PKEY_X25519: return .okp(.x25519)
        case EVP_PKEY_RSA_PSS: return .unsupported("RSASSA-PSS-restricted RSA key (use a plain rsaEncryption key)")
        default:
            return .unsupported(String(cString: EVP_PKEY_get0_type_name(pointer)))
        }
    }

    func utf8Parameter(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, name, &buffer, buffer.count, &length) == 1 else {
            drainOpenSSLErrors()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A big-number parameter as minimal big-endian bytes (`n`, `e` for RSA; `priv` for EC).
    func bigNumberParameter(_ name: String) -> [UInt8]? {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else {
            drainOpenSSLErrors()
            return nil
        }
        defer { BN_clear_free(bn) }
        return BigNumber.bytes(of: bn)
    }

    /// An octet-string parameter (`pub` for EC: the uncompressed point).
    func octetParameter(_ name: String) -> [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, name, nil, 0, &length) == 1 else {
            drainOpenSSLErrors()
            return nil
        }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(pointer, name, &output, length, &length) == 1 else {
            drainOpenSSLErrors()
            return nil
        }
        return Array(output.prefix(length))
    }

    /// The raw public key of an OKP key (RFC 8037 `x`).
    func rawPublicKey() -> [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pointer, nil, &length) == 1 else { drainOpenSSLErrors(); return nil }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_public_key(pointer, &output, &length) == 1 else { drainOpenSSLErrors(); return nil }
        return output
    }

    /// The raw private key of an OKP key (RFC 8037 `d`).
    func rawPrivateKey() -> [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_raw_private_key(pointer, nil, &length) == 1 else { drainOpenSSLErrors(); return nil }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_private_key(pointer, &output, &length) == 1 else { drainOpenSSLErrors(); return nil }
        return output
    }
}

/// Conversions between OpenSSL `BIGNUM`s and big-endian bytes.
enum BigNumber {
    static func bytes(of bn: OpaquePointer) -> [UInt8] {
        let count = Int((BN_num_bits(bn) + 7) / 8)
        var output = [UInt8](repeating: 0, count: count)
        _ = BN_bn2bin(bn, &output)
        return output
    }

    /// A new `BIGNUM` the caller frees, or nil when OpenSSL is out of memory.
    static func make(_ bytes: [UInt8]) -> OpaquePointer? {
        BN_bin2bn(bytes, Int32(bytes.count), nil)
    }
}

// MARK: - Building keys from their components

extension EVPKey {
    /// Builds a key of OpenSSL type `typeName` from named big-number, octet and string parameters.
    ///
    /// `OSSL_PARAM_BLD` keeps pointers to pushed names, strings and octets until `to_param`
    /// copies them, so every such buffer is held in `retained` until the parameters are built.
    static func fromData(
        typeName: String,
        bigNumbers: [(String, [UInt8])],
        octets: [(String, [UInt8])] = [],
        strings: [(String, String)] = [],
        isPrivate: Bool
    ) throws(CryptoError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw openSSLFailure(.cryptoFailure, "out of memory") }
        defer { OSSL_PARAM_BLD_free(builder) }
        var numbers: [OpaquePointer] = []
        var retained: [UnsafeMutableRawBufferPointer] = []
        defer {
            numbers.forEach { BN_clear_free($0) }
            retained.forEach { $0.deallocate() }
        }
        func retain(_ bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.copyBytes(from: bytes)
            retained.append(buffer)
            return buffer
        }
        func retain(cString text: String) -> UnsafePointer<CChar> {
            UnsafePointer(retain(Array(text.utf8) + [0]).baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        var pushed = true
        for (name, value) in strings {
            pushed = pushed && OSSL_PARAM_BLD_push_utf8_string(builder, retain(cString: name), retain(cString: value), value.utf8.count) == 1
        }
        for (name, bytes) in bigNumbers {
            guard let bn = BigNumber.make(bytes) else { throw openSSLFailure(.cryptoFailure, "out of memory") }
            numbers.append(bn)
            pushed = pushed && OSSL_PARAM_BLD_push_BN(builder, retain(cString: name), bn) == 1
        }
        for (name, bytes) in octets {
            let buffer = retain(bytes)
            pushed = pushed && OSSL_PARAM_BLD_push_octet_string(builder, retain(cString: name), buffer.baseAddress, bytes.count) == 1
        }
        guard pushed, let params = OSSL_PARAM_BLD_to_param(builder) else {
            throw openSSLFailure(.cryptoFailure, "could not assemble key parameters")
        }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, typeName, nil) else {
            throw openSSLFailure(.cryptoFailure, "OpenSSL does not know key type \(typeName)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        let selection = isPrivate ? COpenSSL_EVP_PKEY_KEYPAIR() : COpenSSL_EVP_PKEY_PUBLIC_KEY()
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw openSSLFailure(.cryptoFailure, "cannot build \(typeName) keys") }
        guard EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key else {
            throw openSSLFailure(.keyInvalid, "\(typeName) key parameters were rejected")
        }
        return EVPKey(takingOwnership: key, hasPrivateKey: isPrivate)
    }

    /// Runs OpenSSL's consistency checks on a freshly built key.
    private func validate(what: String) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw openSSLFailure(.cryptoFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let ok = hasPrivateKey ? EVP_PKEY_pairwise_check(context) : EVP_PKEY_public_check(context)
        guard ok == 1 else {
            throw openSSLFailure(.keyInvalid, hasPrivateKey ? "\(what): private and public parts do not match" : "\(what) failed validation")
        }
    }

    /// An RSA key from its big-endian components; `privateParts` holds d, then optionally p, q, dp, dq, qi.
    static func rsa(modulus: [UInt8], exponent: [UInt8], privateParts: [[UInt8]]? = nil) throws(CryptoError) -> EVPKey {
        var numbers: [(String, [UInt8])] = [("n", modulus), ("e", exponent)]
        if let privateParts {
            let names = ["d", "rsa-factor1", "rsa-factor2", "rsa-exponent1", "rsa-exponent2", "rsa-coefficient1"]
            numbers += zip(names, privateParts).map { ($0, $1) }
        }
        let key = try fromData(typeName: "RSA", bigNumbers: numbers, isPrivate: privateParts != nil)
        if privateParts != nil, privateParts!.count > 1 { try key.validate(what: "RSA key") }
        return key
    }

    /// An EC key from affine coordinates of the curve's exact length, and optionally the private scalar.
    static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8], d: [UInt8]? = nil) throws(CryptoError) -> EVPKey {
        let point = [0x04] + x + y
        var numbers: [(String, [UInt8])] = []
        if let d { numbers.append(("priv", d)) }
        let key = try fromData(
            typeName: "EC", bigNumbers: numbers, octets: [("pub", point)],
            strings: [("group", curve.openSSLGroupName)], isPrivate: d != nil
        )
        try key.validate(what: "\(curve.jwkName) key")
        return key
    }

    /// An OKP key from its raw public key, or from its raw private key when one is given.
    static func okp(curve: OctetKeyCurve, publicKey: [UInt8], privateKey: [UInt8]? = nil) throws(CryptoError) -> EVPKey {
        let created: OpaquePointer?
        if let privateKey {
            created = EVP_PKEY_new_raw_private_key_ex(nil, curve.openSSLName, nil, privateKey, privateKey.count)
        } else {
            created = EVP_PKEY_new_raw_public_key_ex(nil, curve.openSSLName, nil, publicKey, publicKey.count)
        }
        guard let created else { throw openSSLFailure(.keyInvalid, "\(curve.rawValue) key bytes were rejected") }
        let key = EVPKey(takingOwnership: created, hasPrivateKey: privateKey != nil)
        if privateKey != nil, key.rawPublicKey() != publicKey {
            throw CryptoError(.keyInvalid, "\(curve.rawValue) private key does not match its public key 'x'")
        }
        return key
    }

    /// A fresh key pair: RSA of `rsaBits`, or on an EC or OKP curve.
    static func generate(_ request: KeyGenerationRequest) throws(CryptoError) -> EVPKey {
        let created: OpaquePointer?
        switch request {
        case let .rsa(bits): created = COpenSSL_generate_rsa(UInt32(bits))
        case let .ec(curve): created = COpenSSL_generate_ec(curve.openSSLGroupName)
        case let .okp(curve): created = COpenSSL_generate_named(curve.openSSLName)
        }
        guard let created else { throw openSSLFailure(.cryptoFailure, "key generation failed") }
        return EVPKey(takingOwnership: created, hasPrivateKey: true)
    }
}

/// The kind of an asymmetric key, read from OpenSSL.
enum AsymmetricKeyKind: Sendable, Equatable {
    case rsa
    case ec(EllipticCurve)
    case okp(OctetKeyCurve)
    case unsupported(String)
}

/// What key to generate.
enum KeyGenerationRequest: Sendable {
    case rsa(bits: Int)
    case ec(EllipticCurve)
    case okp(OctetKeyCurve)
}

extension EVPKey {
    /// Whether two keys hold the same public key.
    func hasSamePublicKey(as other: EVPKey) -> Bool {
        let equal = EVP_PKEY_eq(pointer, other.pointer) == 1
        if !equal { drainOpenSSLErrors() }
        return equal
    }
}
