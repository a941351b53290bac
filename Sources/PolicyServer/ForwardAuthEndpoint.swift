internal import Foundation
package import Hummingbird
internal import HTTPTypes
package import PolicyEngine
internal import Rules

/// `/v1/authz/{policy}`: may the original request pass? The request is the call itself, or the
/// one a proxy describes in `X-Forwarded-Method`, `-Proto`, `-Host` and `-Uri` (nginx
/// `auth_request`, Caddy `forward_auth`, Traefik); its bearer token is the `Authorization`
/// header, which every such proxy passes on.
package enum ForwardAuthEndpoint {
    static let forwardedMethod = HTTPField.Name("X-Forwarded-Method")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedURI = HTTPField.Name("X-Forwarded-Uri")!

    /// The answer, and the verdict when the request was judged.
    static func answer(policy: Policy, request: Request, inputs: [String: JSONValue] = [:], outputHeaders: [String: String] = [:],
                       signatureCache: SignatureCache? = nil) async -> (Response, Verdict?) {
        var token: String?
        var subjects: [any PolicySubject] = []
        let usesBearer = policy.subjects.contains("token")
        if usesBearer {
            guard let authorization = request.headers[.authorization], authorization.prefix(7).lowercased() == "bearer ",
                  !authorization.dropFirst(7).isEmpty else {
                // RFC 6750 §3.1: a request without a token gets the challenge, without an error code.
                return (Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"]), nil)
            }
            token = String(authorization.dropFirst(7))
        }
        let original = originalRequest(request)
        if policy.subjects.contains("request") { subjects.append(RequestSubject(object: original.object)) }
        if policy.subjects.contains("callback") { subjects.append(CallbackSubject(url: original.url)) }
        let verdict: Verdict
        do {
            verdict = try await policy.evaluate(token: token, subjects: subjects, inputs: inputs, now: Date().timeIntervalSince1970, clockSource: "server clock",
                                                signatureCache: signatureCache)
        } catch {
            return (ServerResponses.error(.badRequest, code: error.code.rawValue, error.message), nil)
        }
        let authenticates = usesBearer || policy.root.rules.contains { $0.id == "request.bearer" }
        let decision = ForwardAuthDecision(verdict, usesBearer: usesBearer, authenticates: authenticates, outputHeaders: outputHeaders)
        var headers = HTTPFields()
        for header in decision.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            headers.append(HTTPField(name: name, value: header.value))
        }
        return (Response(status: HTTPResponse.Status(code: decision.status), headers: headers), verdict)
    }

    /// The request to judge, as `{method, url, headers}`, and its absolute URL.
    package static func originalRequest(_ request: Request) -> (object: JSONObject, url: String) {
        let fields = request.headers
        let method = fields[forwardedMethod] ?? request.method.rawValue
        let scheme = fields[forwardedProto] ?? "http"
        let host = fields[forwardedHost] ?? request.head.authority ?? "localhost"
        let target = fields[forwardedURI] ?? request.uri.description
        let url = "\(scheme)://\(host)\(target.hasPrefix("/") ? target : "/" + target)"
        var headers = JSONObject()
        for field in fields {
            let name = field.name.canonicalName
            let values = headers[name].map { ($0.arrayValue ?? [$0]) + [.string(field.value)] }
            headers.set(name, values.map { .array($0) } ?? .string(field.value))
        }
        return (JSONObject(["method": .string(method), "url": .string(url), "headers": .object(headers)]), url)
    }
}
