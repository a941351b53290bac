package import HTTPTypes
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE
package import Rules

/// An HTTP request as every front reads it, parsed once: the request a call describes (forward
/// auth: `X-Forwarded-*`, or the target Envoy appends to the endpoint's path) or the call itself
/// (the middleware). Routing, the request rules and callbacks all read this one parse.
///
/// A header that decides what is judged must be sent once: a repeated `Authorization` or
/// `X-Forwarded-Method`, `-Proto`, `-Host`, `-Uri` is refused, never joined or picked from.
package struct IncomingRequest: Sendable {
    /// The method judged: `X-Forwarded-Method` when forwarded and sent, else the call's.
    package let method: String
    /// `http` or `https`.
    package let scheme: String
    /// The host judged, normalised; nil when the request names none.
    package let host: RequestHost?
    /// The original target, parsed; nil when a forwarded call names none, which only a policy
    /// that reads no request and no callback can judge.
    package let target: RequestTarget?
    /// The target as sent.
    package let rawTarget: String?
    /// Every header field of the call, in order, as sent.
    package let fields: HTTPFields

    static let forwardedMethod = HTTPField.Name("X-Forwarded-Method")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedURI = HTTPField.Name("X-Forwarded-Uri")!

    /// The call itself, as a service's middleware receives it; `X-Forwarded-*` headers are the
    /// client's and are not read.
    package static func direct(_ head: HTTPRequest) -> Result<IncomingRequest, FrontRefusal> {
        Result { () throws(FrontRefusal) in
            try single(.authorization, in: head.headerFields)
            return try IncomingRequest(method: head.method.rawValue, scheme: head.scheme ?? "http", host: head.authority,
                                       target: head.path, fields: head.headerFields)
        }
    }

    /// The request a forward-auth call describes: `X-Forwarded-Method`, `-Proto`, `-Host` and
    /// `-Uri`, each at most once, else the call's own method, scheme and `Host`.
    ///
    /// - Parameters:
    ///   - appendedTarget: The original target a proxy appended to the endpoint's path (Envoy
    ///     `ext_authz` with `path_prefix`); a call with both it and `X-Forwarded-Uri` is refused,
    ///     since the two may disagree.
    ///   - callHost: Whether the call's own `Host` stands for the original host when
    ///     `X-Forwarded-Host` is absent (Envoy keeps the original `Host`); false for a route
    ///     table, which must never take the sidecar's own address for the host a client asked for.
    package static func forwarded(_ head: HTTPRequest, appendedTarget: String? = nil, callHost: Bool = true) -> Result<IncomingRequest, FrontRefusal> {
        Result { () throws(FrontRefusal) in
            let fields = head.headerFields
            let method = try single(forwardedMethod, in: fields)
            let proto = try single(forwardedProto, in: fields)
            let host = try single(forwardedHost, in: fields)
            let uri = try single(forwardedURI, in: fields)
            try single(.authorization, in: fields)
            if uri != nil, appendedTarget != nil {
                throw FrontRefusal(code: "target_ambiguous", "the call names the original target twice: in X-Forwarded-Uri and after the endpoint's path")
            }
            if let method, !HTTPToken.isToken(method) {
                throw FrontRefusal(code: "method_invalid", "X-Forwarded-Method is not an HTTP method")
            }
            var scheme = head.scheme ?? "http"
            if let proto {
                guard let known = ["http", "https"].first(where: { $0.utf8.elementsEqual(proto.utf8.map { $0 | 0x20 }) }) else {
                    throw FrontRefusal(code: "proto_invalid", "X-Forwarded-Proto is neither http nor https")
                }
                scheme = known
            }
            return try IncomingRequest(method: method ?? head.method.rawValue, scheme: scheme, host: host ?? (callHost ? head.authority : nil),
                                       target: uri ?? appendedTarget, fields: fields)
        }
    }

    private init(method: String, scheme: String, host: String?, target: String?, fields: HTTPFields) throws(FrontRefusal) {
        self.method = method
        self.scheme = scheme
        if let host {
            guard let parsed = RequestHost(host) else {
                throw FrontRefusal(code: "host_invalid", "the request's host is not a host name, an IPv4 address or an [IPv6] literal with an optional port")
            }
            self.host = parsed
        } else {
            self.host = nil
        }
        if let target {
            guard target.hasPrefix("/") else {
                throw FrontRefusal(code: "target_invalid", "the request's target must be a path starting with '/'")
            }
            switch RequestTarget.parse(target) {
            case let .success(parsed) where parsed.hasDotSegments:
                // Routing would resolve them, and the server behind may not (a router matching the
                // raw path, an upstream that keeps `//`): what is judged would not be what is served.
                throw FrontRefusal(code: "target_invalid", "the request's path holds a dot segment ('.' or '..', however written), which the server behind may resolve differently")
            case let .success(parsed): self.target = parsed
            case let .failure(problem): throw FrontRefusal(code: "target_invalid", problem.message)
            }
        } else {
            self.target = nil
        }
        rawTarget = target
        self.fields = fields
    }

    /// The value of a header that must be sent at most once.
    @discardableResult
    private static func single(_ name: HTTPField.Name, in fields: HTTPFields) throws(FrontRefusal) -> String? {
        let values = fields[values: name]
        guard values.count <= 1 else {
            throw FrontRefusal(code: "header_repeated", "the request has \(values.count) \(name.canonicalName) headers; it must have at most one")
        }
        return values.first
    }

    /// The path a route table matches: the target's path normalised as path rules normalise it
    /// by default (decoded, dot segments removed, slashes merged; encoded slashes, `;` path
    /// parameters and climbing above the root refused).
    package func routingPath() -> Result<String, FrontRefusal> {
        guard let target else {
            return .failure(FrontRefusal(code: "target_missing", "the call names no original target: the proxy must send X-Forwarded-Uri"))
        }
        return target.normalizedPath(.standard).mapError { FrontRefusal(code: $0.code == .pathParameter ? "path_parameter" : "target_invalid", $0.message) }
    }


    /// The absolute URL judged, for a callback policy; nil without a target.
    package var url: String? {
        rawTarget.map { "\(scheme)://\(host?.text ?? "localhost")\($0)" }
    }

    /// The request as a request policy judges it; nil without a target.
    package var subject: RequestSubject? {
        target.map { RequestSubject(method: method, origin: host.flatMap { RequestOrigin(scheme: scheme, host: $0) }, target: $0,
                                    headerFields: fields.map { ($0.name.rawName, $0.value) }) }
    }

    /// `{method, url, headers}` for a decision log that writes request fields.
    package var document: JSONObject {
        var headers = JSONObject()
        for field in fields {
            let name = field.name.canonicalName
            let values = headers[name].map { ($0.arrayValue ?? [$0]) + [.string(field.value)] }
            headers.set(name, values.map { .array($0) } ?? .string(field.value))
        }
        var document = JSONObject(["method": .string(method), "headers": .object(headers)])
        if let url { document.set("url", .string(url)) }
        return document
    }
}
