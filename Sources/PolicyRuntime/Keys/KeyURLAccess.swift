package import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// What a remote key source may reach: the scheme and host of each URL before a request (the
/// policy's, a discovery document's `jwks_uri`, every redirect), and each address a connection is
/// about to be made to, once the host resolved.
///
/// Checking the URL alone would not do: a name can resolve to 169.254.169.254, and a policy from
/// elsewhere could then read the machine's cloud credentials through the key fetch. libcurl asks
/// `admits` before it opens each socket (`CurlLibrary`), so what is checked is what is connected to.
/// Behind a proxy named by the environment, the connection checked is the one to the proxy, which
/// resolves the URL's name itself; the URL's literal host is still checked here.
package struct KeyURLAccess: Sendable, Hashable {
    /// Plain `http://` to a loopback host (a test server); https only otherwise.
    package var allowHTTP: Bool
    /// Link-local addresses, cloud metadata services and the unspecified address may be reached.
    package var allowInternal: Bool

    /// Access with these opt-ins; neither by default.
    package init(allowHTTP: Bool = false, allowInternal: Bool = false) {
        self.allowHTTP = allowHTTP
        self.allowInternal = allowInternal
    }

    /// Why `url` may not be fetched, or nil when it may: not https (or http to a loopback host with
    /// `allowHTTP`), or a host whose literal address or well-known name is refused.
    package func refusal(_ url: URL) -> KeyFetchError? {
        let scheme = url.scheme?.lowercased()
        guard scheme == "https" || scheme == "http" else {
            return KeyFetchError(.insecureURL, "\(url.absoluteString) is not an https URL")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            return KeyFetchError(.insecureURL, "\(url.absoluteString) names no host")
        }
        // Classified decoded, as libcurl decodes a percent-encoded host; quoted as written.
        let scope = AddressScope.of(host: host)
        let shown = url.host(percentEncoded: true) ?? host
        if scheme == "http" {
            guard allowHTTP else {
                return KeyFetchError(.insecureURL, "\(url.absoluteString) is plain http; keys must come over https (allow_http is for loopback tests)")
            }
            guard scope == .loopback else {
                return KeyFetchError(.insecureURL, "\(url.absoluteString) is plain http to \(shown), not a loopback host; allow_http reaches 127.0.0.0/8, ::1 and localhost only")
            }
        }
        if let scope, scope.isRefused, !allowInternal {
            return KeyFetchError(.refusedAddress, "\(url.absoluteString) names \(shown), \(scope.phrase); key URLs may not reach it unless the policy sets allow_internal: true")
        }
        return nil
    }

    /// Whether a connection to `address` may be made: a refused scope only with `allowInternal`,
    /// and over plain http (`plainHTTP`) a loopback address only.
    package func admits(_ address: IPAddress, plainHTTP: Bool) -> Bool {
        let scope = address.scope
        if plainHTTP { return scope == .loopback }
        return !scope.isRefused || allowInternal
    }
}
