public import Hummingbird
public import PolicyEngine
internal import Foundation
internal import HTTPTypes
internal import PolicyServer
internal import Rules

/// A request context that carries the verdict of the policy a `PolicyMiddleware` checked, so a
/// route reads the caller's identity from the policy's outputs instead of parsing the token again.
public protocol PolicyRequestContext: RequestContext {
    /// The verdict, valid whenever the route runs; nil before the middleware.
    var policyVerdict: Verdict? { get set }
}

extension PolicyRequestContext {
    /// The policy's outputs (`user`, `tenant`, ...), empty before the middleware.
    public var policyOutputs: [String: JSONValue] { policyVerdict?.outputs ?? [:] }
}

/// Hummingbird middleware that checks every request against a policy before its route runs:
/// the `Authorization: Bearer` token for token policies, the request itself (method, URL,
/// headers; the body is not read) for request policies.
///
/// A valid verdict goes into the context and the route runs. Otherwise the answer is what
/// `policy-run serve`'s forward auth answers: 401 with an RFC 6750 challenge when the token is
/// missing, not authentic or not current; 403 when the policy denies an authentic token.
public struct PolicyMiddleware<Context: PolicyRequestContext>: RouterMiddleware {
    /// The policy every request must satisfy.
    public let policy: Policy
    /// Signature checks remembered across requests: a session's token is verified once.
    public let signatureCache: SignatureCache
    /// Inputs given to every evaluation (a client ID, an expected audience).
    public var inputs: [String: JSONValue]

    /// A middleware checking `policy`, with `inputs` for every request.
    public init(policy: Policy, inputs: [String: JSONValue] = [:], signatureCache: SignatureCache = SignatureCache()) {
        self.policy = policy
        self.inputs = inputs
        self.signatureCache = signatureCache
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var token: String?
        let usesBearer = policy.subjects.contains("token")
        if usesBearer {
            guard let authorization = request.headers[.authorization], authorization.prefix(7).lowercased() == "bearer ",
                  !authorization.dropFirst(7).isEmpty else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
            }
            token = String(authorization.dropFirst(7))
        }
        var subjects: [any PolicySubject] = []
        if policy.subjects.contains("request") { subjects.append(RequestSubject(object: ForwardAuthEndpoint.originalRequest(request).object)) }
        let verdict: Verdict
        do {
            verdict = try await policy.evaluate(token: token, subjects: subjects, inputs: inputs, now: Date().timeIntervalSince1970,
                                                clockSource: "server clock", signatureCache: signatureCache)
        } catch {
            // A caller mistake of the service itself (an input the policy requires), not of the client.
            throw HTTPError(.internalServerError, message: "the policy \(policy.name) cannot judge requests: \(error.message)")
        }
        guard verdict.valid else {
            let authenticates = usesBearer || policy.root.rules.contains { $0.id == "request.bearer" }
            let decision = ForwardAuthDecision(verdict, usesBearer: usesBearer, authenticates: authenticates)
            var headers = HTTPFields()
            for header in decision.headers {
                if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
            }
            return Response(status: HTTPResponse.Status(code: decision.status), headers: headers)
        }
        var context = context
        context.policyVerdict = verdict
        return try await next(request, context)
    }
}
