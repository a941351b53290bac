internal import Hummingbird
internal import HTTPTypes
internal import Synchronization
internal import Foundation
internal import PolicyCrypto

/// What every call to the playground must show before it is answered, and the headers every
/// answer carries.
///
/// The playground compiles whatever text it is sent, which may read key files of its directory,
/// and saves files: neither a page of another site open in the same browser nor another user of
/// the machine may call it. Its calls (`/api/...`) carry the session's token, which only the
/// address the command printed holds (as a Jupyter server's do): another user cannot read it,
/// and a page of another site cannot read the playground's page to learn it. Besides, on
/// loopback the `Host` must be the address itself, port included (a site's own name resolving
/// to 127.0.0.1, DNS rebinding, is refused); a call may not carry another site's `Origin` or
/// `Sec-Fetch-Site`; and a call with a body sends JSON, which no page of another site can without
/// a preflight the server never allows. Answers forbid framing, sniffing, caching and any script
/// or resource not served by the page's own origin.
struct PlaygroundRequestGuard<Context: RequestContext>: RouterMiddleware {
    /// The session's token, which every `/api/` call carries in `X-Playground-Token`.
    let token: String
    /// The names (without port) `Host` may carry; nil accepts any (`--allow-remote`: the
    /// machine's own names are not known, and the token stands alone).
    let hosts: Set<String>?
    /// The port the server listens on, once it does.
    let port: BoundPort

    static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }
    static var tokenField: HTTPField.Name { HTTPField.Name("X-Playground-Token")! }

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
        guard let authority = head.authority else { return "the playground answers only at the address it printed (no Host)" }
        if let hosts {
            let (host, port) = Self.split(authority)
            guard hosts.contains(host), port == self.port.value else {
                return "the playground answers only at the address it printed (Host '\(authority.prefix(100))')"
            }
        }
        if let site = head.headerFields[Self.secFetchSite], site != "same-origin", site != "none" {
            return "the playground answers its own page only (Sec-Fetch-Site: \(site.prefix(40)))"
        }
        if let origin = head.headerFields[.origin], origin != "http://\(authority)" {
            return "the playground answers its own page only (Origin '\(origin.prefix(100))')"
        }
        if head.method != .get, head.method != .head, Self.mediaType(head.headerFields[.contentType]) != "application/json" {
            return "a call to the playground sends JSON (Content-Type: application/json)"
        }
        // Compared in time that does not depend on where the two differ.
        if (head.path ?? "").hasPrefix("/api/"), !ConstantTime.equals(Array((head.headerFields[Self.tokenField] ?? "").utf8), Array(token.utf8)) {
            return "a call to the playground carries the token of the address it printed (open that address)"
        }
        return nil
    }

    /// The host of `authority` (`127.0.0.1:8182`, `[::1]:8182`, `localhost`), lower-cased, and
    /// its port (80 when none is written).
    static func split(_ authority: String) -> (host: String, port: Int?) {
        let lowered = authority.lowercased()
        let hostEnd: String.Index
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return (lowered, nil) }
            hostEnd = lowered.index(after: close)
        } else {
            hostEnd = lowered.firstIndex(of: ":") ?? lowered.endIndex
        }
        let rest = lowered[hostEnd...]
        if rest.isEmpty { return (String(lowered[..<hostEnd]), 80) }
        guard rest.first == ":", let port = Int(rest.dropFirst()), rest.count > 1, rest.dropFirst().allSatisfy(\.isASCII) else {
            return (String(lowered[..<hostEnd]), nil)
        }
        return (String(lowered[..<hostEnd]), port)
    }

    /// `application/json` of `application/json; charset=utf-8`: the media type, lower-cased.
    static func mediaType(_ contentType: String?) -> String? {
        contentType.map { $0.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

/// The port a server listens on, known once it has bound (port 0 picks one).
final class BoundPort: Sendable {
    private let port = Atomic<Int>(-1)

    /// The port, nil before the server listens.
    var value: Int? {
        let value = port.load(ordering: .acquiring)
        return value < 0 ? nil : value
    }

    func set(_ value: Int) {
        port.store(value, ordering: .releasing)
    }
}
