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
            guard text.hasPrefix("-----BEGIN CERTIFICATE-----") else {
                return .failure(Unreadable(reason: "it is not a PEM certificate, plain or URL-escaped"))
            }
            do {
                let certificates = try CertificateChainVerifier.certificates(pem: text)
                guard certificates.count == 1 else { return .failure(Unreadable(reason: "it holds \(certificates.count) certificates, not the client's one")) }
                return .success(Base64URL.encode(DigestAlgorithm.sha256.hash(certificates[0].der)))
            } catch {
                return .failure(Unreadable(reason: "it is not a readable certificate: \(error.message)"))
            }
        case .xfcc:
            // Elements are separated by ',', fields by ';'; a quoted value may hold either.
            guard !value.contains(",") || value.split(separator: "\"").enumerated().allSatisfy({ $0.offset % 2 == 1 || !$0.element.contains(",") }) else {
                return .failure(Unreadable(reason: "it has several elements (a chain of proxies); the proxy in front must set it, not append to it"))
            }
            let hashes = value.split(separator: ";").compactMap { field -> Substring? in
                let pair = field.split(separator: "=", maxSplits: 1)
                return pair.count == 2 && pair[0].lowercased() == "hash" ? pair[1] : nil
            }
            guard hashes.count == 1, let hash = hashes.first, hash.utf8.count == 64, let bytes = hexBytes(hash) else {
                return .failure(Unreadable(reason: "it has no single Hash=<64 hex digits> field"))
            }
            return .success(Base64URL.encode(bytes))
        }
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
