internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import NIOCore
@_spi(RuleAuthoring) internal import PolicyRuntime
@_spi(RuleAuthoring) internal import PolicyJOSE
internal import PolicyHTTP
internal import Rules

/// `/v1/authz` and `/v1/authz/{policy}`: may the original request pass? The request is the one a
/// proxy describes in `X-Forwarded-Method`, `-Proto`, `-Host` and `-Uri` (nginx `auth_request`,
/// Caddy `forward_auth`, Traefik) or appends to the endpoint's path (Envoy `ext_authz`), read
/// once by `IncomingRequest`; routes, inputs and the policy's rules all read that parse.
enum ForwardAuthEndpoint {
    /// The policy a call to `/v1/authz/NAME[/TARGET]` names, and the original target appended
    /// after it, read from the call's path as sent (not from the router's own reading of it).
    static func namedPolicy(_ path: String) -> (name: Substring, appendedTarget: String?) {
        let rest = path.dropFirst("/v1/authz/".count)
        let nameEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let appended = nameEnd < rest.endIndex && rest[nameEnd] == "/" ? String(rest[nameEnd...]) : nil
        return (rest[..<nameEnd], appended)
    }

    /// The route that takes `request`, and the inputs it supplies; a refusal when the request
    /// has no readable path or host, no route takes it, or an input's header is missing or sent
    /// twice.
    static func route(_ request: IncomingRequest, in routes: [ServeConfiguration.Route]) -> Result<(ServeConfiguration.Route, [String: JSONValue]), FrontRefusal> {
        Result { () throws(FrontRefusal) in
            let path = try request.routingPath().get()
            if request.host == nil, routes.contains(where: { $0.host != nil }) {
                throw FrontRefusal(code: "host_missing", "the call names no original host, and routes match hosts: the proxy must send X-Forwarded-Host")
            }
            guard let route = routes.first(where: { $0.matches(host: request.host, path: path) }) else {
                throw FrontRefusal(.forbidden, code: "no_route", "no route takes this request")
            }
            var inputs: [String: JSONValue] = [:]
            for (name, source) in route.inputs {
                switch source {
                case let .value(value):
                    inputs[name] = value
                case let .header(header, optional):
                    let values = HTTPField.Name(header).map { request.fields[values: $0] } ?? []
                    guard values.count <= 1 else {
                        throw FrontRefusal(code: "header_repeated", "the request has \(values.count) \(header) headers; input '\(name)' takes one")
                    }
                    if let value = values.first {
                        inputs[name] = .string(value)
                    } else if !optional {
                        throw FrontRefusal(code: "input_missing", "the route's input '\(name)' comes from the header \(header), which the request lacks; the proxy must set it")
                    }
                }
            }
            return (route, inputs)
        }
    }

    /// The answer to `request` under `front`, and its decision: the verdict, no credential, or
    /// a refusal.
    static func answer(_ front: FrontPolicy, request: IncomingRequest, inputs: [String: JSONValue] = [:], outputHeaders: [String: String]? = nil,
                       signatureCache: SignatureCache, replayStore: any ReplayStore) async -> (Response, Decision) {
        do {
            let judgement = try await front.judge(request, inputs: inputs, signatureCache: signatureCache, replayStore: replayStore)
            let decision = switch judgement {
            case let .judged(verdict, claims, _, _): Decision(verdict: verdict, claims: claims)
            case let .noCredential(problem): Decision(.noCredential, code: problem.code)
            case let .refused(refusal): Decision(.refused, code: refusal.code)
            }
            return (response(front.answer(judgement, outputHeaders: outputHeaders)), decision)
        } catch {
            return (ServerResponses.error(.badRequest, error), Decision(.refused, code: error.codeName))
        }
    }

    /// `answer` as a Hummingbird response.
    static func response(_ answer: FrontAnswer) -> Response {
        Response(status: answer.status, headers: answer.headerFields, body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body ?? "")))
    }
}
