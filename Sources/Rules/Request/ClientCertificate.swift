@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
import PolicyCrypto

/// The client certificate a TLS-terminating proxy verified and forwards in a header, read as
/// the proxy writes it: nginx's `$ssl_client_escaped_cert` (URL-escaped PEM, also AWS ALB's and
/// Envoy's `Cert=`), a PEM, or Envoy's `x-forwarded-client-cert` (`Hash=`, the hex SHA-256 of
/// the certificate).
enum ClientCertificate {
    /// How the header holds the certificate.
    enum Format: String, CaseIterable {
        /// One PEM certificate, URL-escaped or not.
        case pem
        /// Envoy's `x-forwarded-client-cert`, with exactly one element (no proxy chain).
        case xfcc
    }

    /// Why a header holds no usable certificate.
    struct Unreadable: Error {
        let reason: String
    }

    /// The RFC 8705 §3.1 thumbprint (`x5t#S256`) of the certificate `value` holds: base64url of
    /// the SHA-256 of its DER; or why it holds none.
    static func thumbprint(_ value: String, format: Format) -> Result<String, Unreadable> {
        switch format {
        case .pem:
            // nginx escapes spaces, newlines, `+`, `/` and `=` but not `-`: "-----BEGIN%20...". A PEM
            // itself never holds `%`.
            let text = value.contains("%") ? URLText.percentDecoded(Substring(value)) ?? "" : value
            return der(pem: Array(text.utf8)).flatMap { der in
                do throws(CryptoError) {
                    // Parsed whole (nothing after its DER), then hashed as sent.
                    _ = try X509Certificate(der: der)
                    return .success(Base64URL.sha256(der))
                } catch {
                    return .failure(Unreadable(reason: "it is not a readable certificate: \(error.message)"))
                }
            }
        case .xfcc:
            guard let fields = xfccFields(value) else {
                return .failure(Unreadable(reason: "it has several elements (a chain of proxies) or an unterminated quote; the proxy in front must set it, not append to it"))
            }
            let hashes = fields.filter { $0.name.lowercased() == "hash" }.map(\.value)
            guard hashes.count == 1, let hash = hashes.first, hash.utf8.count == 64, let bytes = hexBytes(Substring(hash)) else {
                return .failure(Unreadable(reason: "it has no single Hash=<64 hex digits> field"))
            }
            return .success(Base64URL.encode(bytes))
        }
    }

    /// The DER of the one certificate of a PEM: its base64 body between the markers, line
    /// breaks or spaces (Go's servers, Caddy among them, write a header's newlines as spaces)
    /// left out, and nothing but white space after the end marker.
    private static func der(pem bytes: [UInt8]) -> Result<[UInt8], Unreadable> {
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8), end = Array("-----END CERTIFICATE-----".utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard bytes.starts(with: begin) else { return .failure(Unreadable(reason: "it is not a PEM certificate, plain or URL-escaped")) }
        guard let close = (begin.count...max(begin.count, bytes.count - end.count)).first(where: { bytes[$0...].starts(with: end) }) else {
            return .failure(Unreadable(reason: "its PEM has no END CERTIFICATE line"))
        }
        guard bytes[(close + end.count)...].allSatisfy(isSpace) else {
            return .failure(Unreadable(reason: "it holds more than the client's one certificate"))
        }
        do {
            return .success(try StandardBase64.decode(String(decoding: bytes[begin.count..<close].filter { !isSpace($0) }, as: UTF8.self)))
        } catch {
            return .failure(Unreadable(reason: "its PEM body is not base64: \(error.message)"))
        }
    }

    /// The fields of an XFCC value's one element, read as Envoy writes them: `;` between fields,
    /// a value in double quotes when it holds `,`, `;` or `=` (with `\"` inside); nil when the
    /// value holds several elements or an unterminated quote.
    static func xfccFields(_ value: String) -> [(name: String, value: String)]? {
        var fields: [(name: String, value: String)] = []
        var name = "", text = "", inName = true, quoted = false, escaped = false
        for character in value {
            if quoted {
                if escaped {
                    text.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    text.append(character)
                }
            } else if character == "," {
                return nil
            } else if character == ";" {
                fields.append((name, text))
                (name, text, inName) = ("", "", true)
            } else if inName {
                if character == "=" { inName = false } else { name.append(character) }
            } else if character == "\"", text.isEmpty {
                quoted = true
            } else {
                text.append(character)
            }
        }
        guard !quoted else { return nil }
        fields.append((name, text))
        return fields
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high { bytes.append(first << 4 | nibble); high = nil } else { high = nibble }
        }
        return high == nil ? bytes : nil
    }
}
