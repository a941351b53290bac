package import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// Fetches a key document (a JWKS or an OIDC discovery document) with HTTP GET, within bounds.
///
/// The bounds are what make a hostile or broken provider harmless: a deadline for the whole
/// exchange, redirects included; a byte cap enforced while the body streams in (a 50 MB answer is
/// cut off at the cap, not buffered); status 200 only; a JSON content type; at most five
/// redirects; no plain `http://` — not even through a redirect — unless the policy opts in
/// for loopback tests, and then to loopback only; and no link-local address or cloud metadata
/// service, by name or once resolved, unless the policy opts in (`KeyURLAccess`). Every redirect
/// is checked as the first URL is. The transport is libcurl, loaded at the first fetch
/// (`CurlLibrary`).
package struct KeyDocumentFetcher: Sendable {
    /// How long one fetch may take.
    package var timeout: Duration
    /// The largest body read; a larger one is cut off and refused.
    package var maxBytes: Int
    /// Whether plain `http://` to a loopback host is allowed (tests only).
    package var allowHTTP: Bool
    /// Whether link-local addresses and cloud metadata services may be reached (`allow_internal`).
    package var allowInternal: Bool

    /// The most redirects one fetch follows.
    static let maxRedirects = 5

    /// A fetcher with these bounds.
    package init(timeout: Duration = .seconds(5), maxBytes: Int = 1 << 20, allowHTTP: Bool = false, allowInternal: Bool = false) {
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.allowHTTP = allowHTTP
        self.allowInternal = allowInternal
    }

    /// What the fetcher's URLs and connections may reach.
    package var access: KeyURLAccess { KeyURLAccess(allowHTTP: allowHTTP, allowInternal: allowInternal) }

    /// GETs `url` and returns its body.
    package func fetch(_ url: URL) async throws(KeyFetchError) -> [UInt8] {
        try check(url)
        let library = try CurlLibrary.shared.get()
        let name = url.absoluteString
        let deadline = ContinuousClock.now + timeout
        var current = name
        for _ in 0...Self.maxRedirects {
            let remaining = deadline - .now
            guard remaining > .zero else { throw KeyFetchError(.timeout, "\(name) did not answer in time") }
            let answer = await library.get(current, accept: "application/json, application/jwk-set+json", timeout: remaining,
                                           maxBytes: maxBytes, access: access)
            switch answer {
            case .timeout:
                throw KeyFetchError(.timeout, "\(name) did not answer in time")
            case .tooLarge:
                throw KeyFetchError(.tooLarge, "\(name) is larger than \(maxBytes) bytes; cut off")
            case .transport(let reason):
                throw KeyFetchError(.transport, "\(name): \(reason)")
            case .unsupportedScheme(let reason):
                throw KeyFetchError(.insecureURL, "\(current): \(reason)")
            case .refusedAddress(let address):
                let scope = IPAddress(host: address)?.scope
                throw KeyFetchError(.refusedAddress, "\(current) resolves to \(address)\(scope.map { ", " + $0.phrase } ?? ""), which "
                                    + (current.lowercased().hasPrefix("http:") ? "plain http may not reach (loopback only)"
                                                                               : "key URLs may not reach unless the policy sets allow_internal: true"))
            case .answered(let status, let contentType, let redirect, let body):
                if (300..<400).contains(status), let redirect {
                    guard let next = URL(string: redirect) else {
                        throw KeyFetchError(.insecureURL, "a redirect to \(redirect) is not a URL")
                    }
                    if let refusal = access.refusal(next) {
                        throw KeyFetchError(refusal.code, "a redirect from \(current) is refused: \(refusal.message)")
                    }
                    current = redirect
                    continue
                }
                guard status == 200 else {
                    throw KeyFetchError(.httpStatus, "\(name) answered HTTP \(status)")
                }
                guard let type = contentType?.lowercased(), type.contains("json") else {
                    throw KeyFetchError(.contentType, "\(name) answered with content type '\(contentType ?? "none")', not JSON")
                }
                return body
            }
        }
        throw KeyFetchError(.transport, "\(name) redirected more than \(Self.maxRedirects) times")
    }

    /// Throws why `url` may not be fetched (`KeyURLAccess.refusal`).
    func check(_ url: URL) throws(KeyFetchError) {
        if let refusal = access.refusal(url) { throw refusal }
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs and rate arithmetic.
    package var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
