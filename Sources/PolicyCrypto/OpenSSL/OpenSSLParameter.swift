internal import COpenSSL

/// Builds `OSSL_PARAM` entries whose names are static strings.
///
/// An `OSSL_PARAM` stores the pointer to its name, not a copy; a Swift `String` bridged to C
/// lives only for the call that made it, so names must come from static storage.
enum OpenSSLParameter {
    private static func cName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    static func utf8String(_ name: StaticString, _ value: UnsafePointer<CChar>) -> OSSL_PARAM {
        OSSL_PARAM_construct_utf8_string(cName(name), UnsafeMutablePointer(mutating: value), 0)
    }

    static func octetString(_ name: StaticString, _ buffer: UnsafeMutableRawBufferPointer) -> OSSL_PARAM {
        OSSL_PARAM_construct_octet_string(cName(name), buffer.baseAddress, buffer.count)
    }

    static var end: OSSL_PARAM { OSSL_PARAM_construct_end() }
}
