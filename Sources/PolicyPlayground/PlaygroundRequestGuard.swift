internal import Hummingbird
internal import HTTPTypes

/// What every call to the playground must show before it is answered, and the headers every
/// answer carries.
///
/// The playground compiles whatever text it is sent, which may read key files of its directory,
/// and saves files: a page of another site open in the same browser must not be able to call it.
/// A site cannot name the server by a host of its own (DNS rebinding: its name resolving to
/// 127.0.0.1), so the `Host` must be one this server answers to; a cross-site call carries an
/// `Origin` (or `Sec-Fetch-Site`) that is not this server's; and a call with a JSON body cannot
/// be sent cross-site without a preflight the server never allows. Answers forbid framing, sniffing,
/// caching and any script or resource not served by the page's own origin.
struct PlaygroundRequestGuard<Context: RequestContext>: RouterMiddleware {
    /// The host names (without port) the server answers to.
    let hosts: Set<String>

    static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }

    /// The headers of every answer.
    static var securityHeaders: HTTPFields {
        [
            .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            .cacheControl: "no-store",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let refusal = refusal(request.head) {
            response = PlaygroundResponses.error(.forbidden, code: "forbidden", refusal)
        } else {
            response = try await next(request, context)
        }
        for field in Self.securityHeaders { response.headers[field.name] = field.value }
        return response
    }

    /// Why `head` is refused, nil when it may be answered.
    func refusal(_ head: HTTPRequest) -> String? {
        guard let authority = head.authority, hosts.contains(Self.host(of: authority)) else {
            return "the playground answers only at the address it printed (Host \(head.authority.map { "'\($0.prefix(100))'" } ?? "missing"))"
        }
        if let site = head.headerFields[Self.secFetchSite], site != "same-origin", site != "none" {
            return "the playground answers its own page only (Sec-Fetch-Site: \(site.prefix(40)))"
        }
        if let origin = head.headerFields[.origin], origin != "http://\(authority)" {
            return "the playground answers its own page only (Origin '\(origin.prefix(100))')"
        }
        if head.method != .get, head.method != .head, !(head.headerFields[.contentType] ?? "").lowercased().hasPrefix("application/json") {
            return "a call to the playground sends JSON (Content-Type: application/json)"
        }
        return nil
    }

    /// The host of `authority` (`127.0.0.1:8182`, `[::1]:8182`, `localhost`), lower-cased.
    static func host(of authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") { return String(lowered[...close]) }
        return String(lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
