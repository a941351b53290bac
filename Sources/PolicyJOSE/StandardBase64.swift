/// Strict standard base64 (RFC 4648 §4) with padding, as X.509 chains in `x5c` use it
/// (RFC 7517 §4.7).
package enum StandardBase64 {
    package static func decode(_ text: String) throws(JOSEError) -> [UInt8] {
        var bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else {
            throw JOSEError(.invalidBase64URL, "standard base64 text must be padded to a multiple of 4 characters")
        }
        var padding = 0
        while padding < 2, bytes.last == UInt8(ascii: "=") {
            bytes.removeLast()
            padding += 1
        }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            case UInt8(ascii: "-"), UInt8(ascii: "_"):
                throw JOSEError(.invalidBase64URL, "standard base64 does not use '-' or '_'")
            default: break
            }
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(JOSEError) in try Base64URL.decode(buffer) }
    }

    package static func encode(_ bytes: [UInt8]) -> String {
        var encoded = Base64URL.encodeBytes(bytes)
        for index in encoded.indices {
            if encoded[index] == UInt8(ascii: "-") { encoded[index] = UInt8(ascii: "+") }
            if encoded[index] == UInt8(ascii: "_") { encoded[index] = UInt8(ascii: "/") }
        }
        while encoded.count % 4 != 0 { encoded.append(UInt8(ascii: "=")) }
        return String(decoding: encoded, as: UTF8.self)
    }
}
