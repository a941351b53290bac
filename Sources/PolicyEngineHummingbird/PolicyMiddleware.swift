public import Hummingbird
@_spi(RuleAuthoring) public import PolicyRuntime
@_spi(RuleAuthoring) public import PolicyJOSE
internal import PolicyHTTP
internal import NIOCore

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
/// The request is read as it arrived: `X-Forwarded-*` headers are the client's and are not
/// believed. A valid verdict goes into the context and the route runs. Otherwise the answer is
/// what `policy-run serve`'s forward auth answers: 401 with an RFC 6750 challenge when the token
/// is missing, not authentic or not current; 403 when the policy denies an authentic token; 400
/// for a request that cannot be read one way only (two `Authorization` headers, a path with `;`
/// or above the root).
public struct PolicyMiddleware<Context: PolicyRequestContext>: RouterMiddleware {
    /// The policy every request must satisfy.
    public let policy: Policy
    /// Signature checks remembered across requests (the process's `SignatureCache.shared`
    /// unless given another): a session's token is verified once.
    public let signatureCache: SignatureCache
    /// Inputs given to every evaluation (a client ID, an expected audience).
    public var inputs: [String: JSONValue]
    /// Where one-time values (DPoP proofs' `jti`) are recorded: the process's memory unless
    /// given a store several instances share.
    public let replayStore: any ReplayStore
    /// The policy as the front applies it, read once.
    let front: FrontPolicy

    /// A middleware checking `policy`, with `inputs` for every request.
    public init(policy: Policy, inputs: [String: JSONValue] = [:], signatureCache: SignatureCache = .shared,
                replayStore: any ReplayStore = MemoryReplayStore.shared) {
        self.policy = policy
        self.replayStore = replayStore
        self.inputs = inputs
        self.signatureCache = signatureCache
        front = FrontPolicy(policy)
    }

    /// Judges `request`; runs `next` with the verdict in the context when it is valid.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let judgement: FrontPolicy.Judgement
        switch IncomingRequest.direct(request.head) {
        case let .failure(refusal):
            judgement = .refused(refusal)
        case let .success(incoming):
            do {
                judgement = try await front.judge(incoming, inputs: inputs, signatureCache: signatureCache, replayStore: replayStore)
            } catch {
                // A mistake of the service itself (an input the policy requires), not of the client.
                throw HTTPError(.internalServerError, message: "the policy \(policy.name) cannot judge requests: \(error.message)")
            }
        }
        if case let .judged(verdict, _, _, _) = judgement, verdict.valid {
            var context = context
            context.policyVerdict = verdict
            return try await next(request, context)
        }
        let answer = front.answer(judgement)
        return Response(status: answer.status, headers: answer.headerFields, body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body ?? "")))
    }
}
