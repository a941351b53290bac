package import Foundation
@_spi(RuleAuthoring) package import PolicyJOSE

/// A key set fetched over HTTP(S): a `jwks_uri`, or an issuer's OIDC discovery document that
/// names one (POLICY-FORMAT.md section 4).
///
/// Two policies that write the same source with the same options share one cache entry, so one
/// provider is fetched once however many policies trust it. Options are part of that identity:
/// a policy with a different `min_rsa_bits` gets its own parse of the set.
public struct RemoteKeySource: Sendable, Hashable, CustomStringConvertible {
    /// Where the key set is published.
    package enum Location: Sendable, Hashable {
        /// The JWKS itself.
        case jwksURI(URL)
        /// An issuer whose `/.well-known/openid-configuration` names the JWKS.
        case discovery(issuer: String)
    }

    /// The JWKS URL, or the issuer whose discovery document names it.
    package var location: Location
    /// How long a fetched set is used before it is fetched again.
    package var cacheTTL: Duration
    /// The least time between two fetches; an unknown `kid` triggers at most one refetch per interval.
    package var minRefreshInterval: Duration
    /// How long past its TTL the last good set is still served while the source fails.
    package var staleIfError: Duration
    /// How long one fetch may take, connection to last byte.
    package var timeout: Duration
    /// How long an evaluation that needs a fetch (an unknown `kid`, no set yet) waits for it;
    /// then it is judged with what the cache holds while the fetch goes on. A `kid` the cache
    /// holds never waits.
    package var maxWait: Duration
    /// Whether plain `http://` URLs to a loopback host are accepted (tests only).
    package var allowHTTP: Bool
    /// Whether link-local addresses and cloud metadata services may be reached (`allow_internal`).
    package var allowInternal: Bool
    /// How the fetched keys are checked (`min_rsa_bits`).
    package var keyOptions: KeyLoadingOptions

    /// A source with the format's defaults: 10 min TTL, 30 s between fetches, 1 h stale-if-error,
    /// 5 s timeout, at most 1 s waited for a fetch, https only, no link-local or metadata address.
    package init(location: Location, cacheTTL: Duration = .seconds(600), minRefreshInterval: Duration = .seconds(30),
                staleIfError: Duration = .seconds(3600), timeout: Duration = .seconds(5), maxWait: Duration = .seconds(1), allowHTTP: Bool = false,
                allowInternal: Bool = false, keyOptions: KeyLoadingOptions = .standard) {
        self.location = location
        self.cacheTTL = cacheTTL
        self.minRefreshInterval = minRefreshInterval
        self.staleIfError = staleIfError
        self.timeout = timeout
        self.maxWait = maxWait
        self.allowHTTP = allowHTTP
        self.allowInternal = allowInternal
        self.keyOptions = keyOptions
    }

    /// `max_wait` in words: `1 s`, `300 ms`.
    var maxWaitText: String {
        let milliseconds = Int((maxWait.seconds * 1000).rounded())
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// As the policy writes it: `jwks_uri https://…` or `discovery https://…`.
    public var description: String {
        switch location {
        case let .jwksURI(url): "jwks_uri \(url.absoluteString)"
        case let .discovery(issuer): "discovery \(issuer)"
        }
    }

    /// Fetches the set and parses every key once, so evaluations only look keys up.
    ///
    /// A set holding private or secret keys is refused: a provider publishing those has leaked
    /// them, and verifying with them would accept tokens anyone could have made.
    package func fetchKeys() async throws(KeyFetchError) -> JWKSet {
        try await fetchDocument().keys
    }

    /// Fetches the set as `fetchKeys` does, and also returns the document's bytes as published,
    /// for `policy-run keys snapshot` to store.
    package func fetchDocument() async throws(KeyFetchError) -> (bytes: [UInt8], keys: JWKSet) {
        let fetcher = KeyDocumentFetcher(timeout: timeout, allowHTTP: allowHTTP, allowInternal: allowInternal)
        let jwksURL: URL
        switch location {
        case let .jwksURI(url): jwksURL = url
        case let .discovery(issuer): jwksURL = try await discoverJWKSURI(issuer: issuer, with: fetcher)
        }
        let body = try await fetcher.fetch(jwksURL)
        let set: JWKSet
        do {
            set = try JWKSet(json: body, options: keyOptions)
        } catch {
            throw KeyFetchError(.invalidDocument, "\(jwksURL.absoluteString) is not a usable JWK Set: \(error.message)")
        }
        if set.keys.contains(where: \.isPrivate) {
            throw KeyFetchError(.invalidDocument, "\(jwksURL.absoluteString) publishes private or secret keys; refusing the whole set")
        }
        guard !set.keys.isEmpty else {
            let reasons = set.skipped.map { "key \($0.index)\($0.kid.map { " (\($0))" } ?? ""): \($0.error.message)" }
            throw KeyFetchError(.noUsableKey, "\(jwksURL.absoluteString) holds no usable key" + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")))
        }
        return (body, set)
    }

    /// Reads the discovery document and returns its `jwks_uri`, after checking that the document
    /// speaks for exactly the configured issuer (OpenID Connect Discovery 1.0 §4.3).
    private func discoverJWKSURI(issuer: String, with fetcher: KeyDocumentFetcher) async throws(KeyFetchError) -> URL {
        guard let documentURL = Self.discoveryURL(issuer: issuer) else {
            throw KeyFetchError(.insecureURL, "'\(issuer)' is not an issuer URL")
        }
        let body = try await fetcher.fetch(documentURL)
        let document: JSONObject
        do {
            document = try JSONParser().parseObject(body, what: "a discovery document")
        } catch {
            throw KeyFetchError(.invalidDocument, "\(documentURL.absoluteString): \(error.message)")
        }
        guard let named = document["issuer"]?.stringValue else {
            throw KeyFetchError(.invalidDocument, "\(documentURL.absoluteString) has no 'issuer' string")
        }
        guard named.isExactly(issuer) else {
            throw KeyFetchError(.issuerMismatch, "\(documentURL.absoluteString) names the issuer '\(named)', not '\(issuer)'; its keys are not used")
        }
        guard let text = document["jwks_uri"]?.stringValue, let jwksURL = URL(string: text), jwksURL.host != nil else {
            throw KeyFetchError(.invalidDocument, "\(documentURL.absoluteString) has no 'jwks_uri' URL")
        }
        try fetcher.check(jwksURL)
        return jwksURL
    }

    /// `{issuer}/.well-known/openid-configuration`, with a trailing `/` of the issuer dropped first.
    static func discoveryURL(issuer: String) -> URL? {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration"), url.host != nil else { return nil }
        return url
    }
}
