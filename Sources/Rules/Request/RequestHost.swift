/// A request's host as routing compares it: the name in lower case without a trailing dot, and
/// the port apart. `Admin.Example.COM.:443` and `admin.example.com` name the same host.
///
/// Only what RFC 3986 allows in a host is read: a name of letters, digits, `-`, `.`, `_` and
/// `~` in labels that are not empty, an IPv4 address, or an IPv6 literal in brackets, then an optional decimal port. Anything
/// else (`admin.example.com:x`, a percent escape, a space, a second port) is refused, never
/// guessed at.
package struct RequestHost: Sendable, Equatable {
    /// The name or address, normalised; an IPv6 literal keeps its brackets.
    package let name: String
    /// The port, when one was written.
    package let port: Int?

    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let ipv6Characters = Set("0123456789abcdef:.".utf8)

    /// Reads `text` (a `Host` or `X-Forwarded-Host` value); nil when it is not a host.
    package init?(_ text: String) {
        var bytes = Array(text.utf8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        var port: Int?
        let hostEnd: Int
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                  bytes[1..<close].allSatisfy({ Self.ipv6Characters.contains($0) }) else { return nil }
            hostEnd = close + 1
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
            guard bytes[..<hostEnd].allSatisfy({ Self.nameCharacters.contains($0) }) else { return nil }
        }
        if hostEnd < bytes.count {
            let digits = bytes[(hostEnd + 1)...]
            guard bytes[hostEnd] == UInt8(ascii: ":"), (1...5).contains(digits.count),
                  digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(String(decoding: digits, as: UTF8.self)), number <= 65535 else { return nil }
            port = number
        }
        bytes = Array(bytes[..<hostEnd])
        if bytes.count > 1, bytes.last == UInt8(ascii: "."), bytes.first != UInt8(ascii: "[") { bytes.removeLast() }
        // No empty label: `admin.example.com..` is no spelling of `admin.example.com`.
        guard !bytes.isEmpty, bytes.count <= 255,
              bytes.first == UInt8(ascii: "[") || !bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { return nil }
        name = String(decoding: bytes, as: UTF8.self)
        self.port = port
    }

    /// A host already normalised.
    init(name: String, port: Int?) {
        self.name = name
        self.port = port
    }

    /// The host as a URL writes it: the name, then `:port` when one was written.
    package var text: String { port.map { "\(name):\($0)" } ?? name }
}
