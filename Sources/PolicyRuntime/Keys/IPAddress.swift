#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
@_spi(RuleAuthoring) import PolicyJOSE
#endif

/// An IPv4 or IPv6 address, as a key URL writes it or as a connection is about to reach it.
///
/// A URL's IPv4 host is read as libcurl and browsers read it: with one to four parts, each in
/// decimal, octal (`0251`) or hex (`0xa9`), the last filling the bytes left, so `2852039166`,
/// `0xa9.0xfe.0xa9.0xfe` and `169.254.169.254` are one address and a check on the host cannot be
/// passed by spelling it another way.
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    package let bytes: [UInt8]

    /// The address of these 4 or 16 bytes; nil for any other count.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address a URL host writes literally (`192.0.2.1` in any form above, `[2001:db8::1]` or
    /// `2001:db8::1`, a zone such as `%eth0` ignored); nil for a host name.
    package init?(host: String) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.contains(":") {
            if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(text), &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            guard let value = Self.ipv4(text) else { return nil }
            bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
    }

    /// Whether it is an IPv4 address.
    package var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) carries, which a
    /// dual-stack socket reaches as that IPv4 address; nil for any other.
    package var mappedIPv4: IPAddress? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
        return IPAddress(bytes: Array(bytes[12...]))
    }

    /// `192.0.2.1` or `2001:db8::1`.
    package var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An IPv4 host as a 32-bit number, or nil when `text` is not one (a host name).
    static func ipv4(_ text: Substring) -> UInt32? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }  // a trailing dot, as in DNS
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = number(part) else { return nil }
            numbers.append(number)
        }
        let last = numbers.removeLast()
        guard numbers.allSatisfy({ $0 <= 0xFF }), last < UInt64(1) << (8 * (4 - numbers.count)) else { return nil }
        var value = last
        for (index, number) in numbers.enumerated() { value |= number << (8 * (3 - index)) }
        return UInt32(value)
    }

    /// One part of an IPv4 host: decimal, octal after a leading `0`, hex after `0x`.
    private static func number(_ part: Substring) -> UInt64? {
        let text = part.lowercased()
        let (digits, radix): (Substring, Int) =
            if text.hasPrefix("0x") { (text.dropFirst(2), 16) } else if text.count > 1, text.hasPrefix("0") { (text.dropFirst(), 8) } else { (Substring(text), 10) }
        if radix == 16, digits.isEmpty { return 0 }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        return UInt64(digits, radix: radix)
    }
}
