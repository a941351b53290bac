/// The scheme, host and port a URL names, as RFC 3986 §6.2.3 compares them: scheme and host in
/// lower case, a host's trailing dot dropped, and the scheme's default port (80 for `http`, 443
/// for `https`) the same as none. `HTTPS://API.example.com:443` and `https://api.example.com`
/// are one origin.
package struct RequestOrigin: Sendable, Equatable, CustomStringConvertible {
    /// `http` or `https`.
    package let scheme: String
    /// The host, normalised.
    package let host: RequestHost
    /// The port, with the scheme's default filled in.
    package let port: Int

    /// The origin of `scheme` and `host`; nil for a scheme other than `http` and `https`.
    package init?(scheme: String, host: RequestHost) {
        guard let known = ["http", "https"].first(where: { $0.utf8.elementsEqual(scheme.utf8.map { $0 | 0x20 }) }) else { return nil }
        self.scheme = known
        self.host = RequestHost(name: host.name, port: nil)
        port = host.port ?? (known == "https" ? 443 : 80)
    }

    /// Reads `scheme://authority`, the text of an absolute URL before its path; nil when it is
    /// not an `http(s)` origin (user information, an empty or invalid host, a bad port).
    package init?(url text: Substring) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"),
              let host = RequestHost(String(text[text.index(colon, offsetBy: 3)...])) else { return nil }
        self.init(scheme: String(text[..<colon]), host: host)
    }

    /// `scheme://host[:port]`, the port written only when it is not the scheme's default.
    package var description: String {
        port == (scheme == "https" ? 443 : 80) ? "\(scheme)://\(host.name)" : "\(scheme)://\(host.name):\(port)"
    }
}
