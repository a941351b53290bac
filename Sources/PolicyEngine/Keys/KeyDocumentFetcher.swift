public import Foundation

/// Fetches a key document (a JWKS or an OIDC discovery document) with HTTP GET, within bounds.
///
/// The bounds are what make a hostile or broken provider harmless: a deadline for the whole
/// exchange, redirects included; a byte cap enforced while the body streams in (a 50 MB answer is
/// cut off at the cap, not buffered); status 200 only; a JSON content type; at most five
/// redirects; and no plain `http://` — not even through a redirect — unless the policy opts in
/// for loopback tests. The transport is libcurl, loaded at the first fetch (`CurlLibrary`).
public struct KeyDocumentFetcher: Sendable {
    /// How long one fetch may take.
    public var timeout: Duration
    /// The largest body read; a larger one is cut off and refused.
    public var maxBytes: Int
    /// Whether plain `http://` is allowed (loopback tests only).
    public var allowHTTP: Bool

    /// The most redirects one fetch follows.
    static let maxRedirects = 5

    /// A fetcher with these bounds.
    public init(timeout: Duration = .seconds(5), maxBytes: Int = 1 << 20, allowHTTP: Bool = false) {
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.allowHTTP = allowHTTP
    }

    /// GETs `url` and returns its body.
    public func fetch(_ url: URL) async throws(KeyFetchError) -> [UInt8] {
        try checkScheme(url)
        let library = try CurlLibrary.shared.get()
        let name = url.absoluteString
        let deadline = ContinuousClock.now + timeout
        var current = name
        for _ in 0...Self.maxRedirects {
            let remaining = deadline - .now
            guard remaining > .zero else { throw KeyFetchError(.timeout, "\(name) did not answer in time") }
            let answer = await library.get(current, accept: "application/json, application/jwk-set+json", timeout: remaining,
                                           maxBytes: maxBytes, allowHTTP: allowHTTP)
            switch answer {
            case .timeout:
                throw KeyFetchError(.timeout, "\(name) did not answer in time")
            case .tooLarge:
                throw KeyFetchError(.tooLarge, "\(name) is larger than \(maxBytes) bytes; cut off")
            case .transport(let reason):
                throw KeyFetchError(.transport, "\(name): \(reason)")
            case .unsupportedScheme(let reason):
                throw KeyFetchError(.insecureURL, "\(current): \(reason)")
            case .answered(let status, let contentType, let redirect, let body):
                if (300..<400).contains(status), let redirect {
                    guard let next = URL(string: redirect), (try? checkScheme(next)) != nil else {
                        throw KeyFetchError(.insecureURL, "a redirect to \(redirect) leaves https")
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

    func checkScheme(_ url: URL) throws(KeyFetchError) {
        switch url.scheme?.lowercased() {
        case "https": return
        case "http" where allowHTTP: return
        case "http": throw KeyFetchError(.insecureURL, "\(url.absoluteString) is plain http; keys must come over https (allow_http is for loopback tests)")
        default: throw KeyFetchError(.insecureURL, "\(url.absoluteString) is not an https URL")
        }
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs and rate arithmetic.
    package var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
