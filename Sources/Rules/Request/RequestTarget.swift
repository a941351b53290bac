/// A request's URL as policies read it: an absolute `http(s)` URL or an origin-form target
/// (`/path?query`), checked as sent and split without Foundation's repairs.
///
/// The one parse of a request's URL: the request rules judge it, and an HTTP front's routing
/// reads `normalizedPath(.standard)` of the same value.
package struct RequestTarget: Sendable {
    /// The path as sent, still percent-encoded; `RequestPath` normalises it for each policy.
    package let rawPath: Substring
    /// The query, form-decoded.
    package let query: FormParameters
    /// The scheme, host and port of an absolute URL; nil for an origin-form target.
    package let origin: RequestOrigin?
    /// Whether the URL has a query or a fragment, even an empty one (`/path?`).
    package let hasQueryOrFragment: Bool

    /// Why a URL cannot be read.
    package struct Problem: Error, Sendable {
        /// Why, in words a finding or an HTTP answer can carry.
        package let message: String
    }

    /// Whether the path holds a dot segment (`.` or `..`, percent-encoded or with `;`
    /// parameters as well): a front that cannot tell how the server behind resolves them (a
    /// router that matches the raw path, an upstream that does not merge `//`) refuses them.
    package var hasDotSegments: Bool {
        rawPath.split(separator: "/", omittingEmptySubsequences: true).contains { segment in
            let bare = segment.prefix { $0 != ";" }
            guard bare.count <= 9 else { return false }
            let decoded = URLText.percentDecoded(bare)
            return decoded == "." || decoded == ".."
        }
    }

    /// The path normalised under `options` (dot segments removed, slashes merged, ...).
    package func normalizedPath(_ options: PathNormalization) -> Result<String, RequestPath.Refusal> {
        RequestPath.normalize(rawPath, options)
    }

    /// Reads `url`: an `http(s)` URL or an origin-form target, with at most 16 KiB of RFC 3986
    /// characters, escapes that decode, no NUL, a path that stays below the root, and a query
    /// that form-decodes.
    package static func parse(_ url: String) -> Result<RequestTarget, Problem> {
        if let problem = URLText.problem(url, what: "the request URL") { return .failure(Problem(message: problem)) }
        let parts = URLText.split(url)
        var rawPath = parts.beforeQuery
        var origin: RequestOrigin?
        if !rawPath.hasPrefix("/") {
            let lowered = rawPath.lowercased()
            guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
                return .failure(Problem(message: "the request URL must be an http(s) URL or start with '/'"))
            }
            let afterScheme = rawPath[rawPath.index(rawPath.startIndex, offsetBy: lowered.hasPrefix("https://") ? 8 : 7)...]
            let slash = afterScheme.firstIndex(of: "/")
            guard slash != afterScheme.startIndex, !afterScheme.isEmpty else { return .failure(Problem(message: "the request URL has no host")) }
            guard let named = RequestOrigin(url: rawPath[..<(slash ?? afterScheme.endIndex)]) else {
                return .failure(Problem(message: "the request URL's host is not a host name, an IPv4 address or an [IPv6] literal with an optional port"))
            }
            origin = named
            rawPath = slash.map { afterScheme[$0...] } ?? "/"
        }
        let marked = url.utf8.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return decode(path: rawPath, query: parts.query, origin: origin, hasQueryOrFragment: marked)
    }

    private static func decode(path rawPath: Substring, query rawQuery: Substring, origin: RequestOrigin?, hasQueryOrFragment: Bool) -> Result<RequestTarget, Problem> {
        // Escapes that do not decode, NUL and climbing above the root are wrong under every
        // normalisation.
        let lenient = PathNormalization(escapedSlashes: .keep, pathParameters: .strip)
        if case let .failure(refusal) = RequestPath.normalize(rawPath, lenient) {
            return .failure(Problem(message: refusal.message))
        }
        do {
            return .success(RequestTarget(rawPath: rawPath, query: try FormParameters(decoding: rawQuery), origin: origin,
                                          hasQueryOrFragment: hasQueryOrFragment))
        } catch {
            return .failure(Problem(message: "in the query, \(error.description)"))
        }
    }
}

/// Checks on URL text shared by callbacks and requests.
enum URLText {
    /// Longest URL accepted.
    static let maxBytes = 16 * 1024
    private static let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8)

    /// Why `url` cannot be read: too long, or a character RFC 3986 does not allow.
    static func problem(_ url: String, what: String) -> String? {
        let bytes = Array(url.utf8)
        guard bytes.count <= maxBytes else { return "\(what) has \(bytes.count) bytes; at most \(maxBytes) are accepted" }
        guard !bytes.isEmpty else { return "\(what) is empty" }
        if let index = bytes.firstIndex(where: { !allowed.contains($0) }) {
            return "\(what) has a character URLs do not allow (byte 0x\(String(bytes[index], radix: 16)) at position \(index + 1))"
        }
        return nil
    }

    /// The text before the query, the query and the fragment, split as sent (without `?`, `#`).
    static func split(_ url: String) -> (beforeQuery: Substring, query: Substring, fragment: Substring) {
        let atFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let atQuery = atFragment[0].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return (atQuery[0], atQuery.dropFirst().first ?? "", atFragment.dropFirst().first ?? "")
    }

    /// `%XX` escapes decoded, strictly; nil for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        FormParameters.decode(text, plusIsSpace: false)
    }
}
