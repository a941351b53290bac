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

    /// What judging a request under a policy came to.
    package enum Judgement {
        /// The policy checks a bearer token and the request has none.
        case noToken
        /// The verdict, how a refusal answers it, and the token's claims as decoded.
        case judged(Verdict, usesBearer: Bool, authenticates: Bool, claims: JSONObjectView?)
    }

    /// Whether `policy` checks a token, its own or a request's bearer: then a refusal may be a
    /// 401. Read once per policy (it walks the chain), not per request.
    package static func authenticates(_ policy: Policy) -> Bool {
        policy.subjects.contains("token") || policy.root.rules.contains { $0.id == "request.bearer" }
    }

    /// Judges `request` under `policy`: its bearer token, the request itself, its URL as a
    /// callback, as the policy's sections ask; `authenticates` is `authenticates(policy)`.
    ///
    /// - Throws: `EvaluationError` when the policy cannot judge requests as configured (an
    ///   input it requires and the caller does not give).
    package static func judge(policy: Policy, authenticates: Bool, request: Request, inputs: [String: JSONValue] = [:],
                              signatureCache: SignatureCache? = nil) async throws(EvaluationError) -> Judgement {
        var token: String?
        let usesBearer = policy.subjects.contains("token")
        if usesBearer {
            guard let authorization = request.headers[.authorization], let bearer = bearerToken(authorization) else { return .noToken }
            token = bearer
        }
        var subjects: [any PolicySubject] = []
        if policy.subjects.contains("request") || policy.subjects.contains("callback") {
            let original = originalRequest(request)
            if policy.subjects.contains("request") { subjects.append(RequestSubject(object: original.object)) }
            if policy.subjects.contains("callback") { subjects.append(CallbackSubject(url: original.url)) }
        }
        let (verdict, decoded) = try await policy.evaluateDecoding(token: token, subjects: subjects, inputs: inputs, now: Date().timeIntervalSince1970,
                                                                   clockSource: "server clock", signatureCache: signatureCache)
        return .judged(verdict, usesBearer: usesBearer, authenticates: authenticates, claims: decoded?.claims)
    }

    /// The token of an `Authorization: Bearer TOKEN` value (the scheme in any case, RFC 6750
    /// §2.1), compared as ASCII bytes; nil for another scheme or an empty token.
    package static func bearerToken(_ authorization: String) -> String? {
        let bytes = authorization.utf8
        guard bytes.count > 7, zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) == $1 }) else { return nil }
        return String(Substring(authorization.utf8.dropFirst(7)))
    }

    /// The answer to a request without the token its policy needs: the RFC 6750 §3.1 challenge,
    /// without an error code.
    package static let tokenChallenge = Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])

    /// The answer a decision makes: its status and headers.
    package static func response(_ decision: ForwardAuthDecision) -> Response {
        var headers = HTTPFields()
        for header in decision.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            headers.append(HTTPField(name: name, value: header.value))
        }
        return Response(status: HTTPResponse.Status(code: decision.status), headers: headers)
    }

    /// The answer, and the decision when the request was judged.
    static func answer(policy: Policy, authenticates: Bool, request: Request, inputs: [String: JSONValue] = [:], outputHeaders: [String: String] = [:],
                       signatureCache: SignatureCache? = nil) async -> (Response, Decision?) {
        do {
            switch try await judge(policy: policy, authenticates: authenticates, request: request, inputs: inputs, signatureCache: signatureCache) {
            case .noToken:
                return (tokenChallenge, nil)
            case let .judged(verdict, usesBearer, authenticates, claims):
                let decision = ForwardAuthDecision(verdict, usesBearer: usesBearer, authenticates: authenticates, outputHeaders: outputHeaders)
                return (response(decision), Decision(verdict: verdict, claims: claims))
            }
        } catch {
            return (ServerResponses.error(.badRequest, code: error.code.rawValue, error.message), nil)
        }
    }

    /// The original request's target when a proxy appended it to the endpoint's path (Envoy's
    /// `ext_authz` with `path_prefix: /v1/authz/NAME`): what follows `/v1/authz/NAME`.
    static func unprefixed(_ target: String) -> String {
        guard target.hasPrefix("/v1/authz/") else { return target }
        let rest = target.dropFirst("/v1/authz/".count)
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        return rest[slash] == "?" ? "/" + rest[slash...] : String(rest[slash...])
    }

    /// The request to judge, as `{method, url, headers}`, and its absolute URL.
    package static func originalRequest(_ request: Request) -> (object: JSONObject, url: String) {
        let fields = request.headers
        let method = fields[forwardedMethod] ?? request.method.rawValue
        let scheme = fields[forwardedProto] ?? "http"
        let host = fields[forwardedHost] ?? request.head.authority ?? "localhost"
        let target = fields[forwardedURI] ?? unprefixed(request.uri.description)
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
