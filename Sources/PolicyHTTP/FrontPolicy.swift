internal import HTTPTypes
internal import Foundation
@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE
package import Rules

/// A policy as an HTTP front applies it: what it reads from a request, and which of its rules
/// mean, when they fail, that the caller's credential is not acceptable. Built once per policy
/// (it walks the chain), not per request.
package struct FrontPolicy: Sendable {
    /// The policy.
    package let policy: Policy
    /// Whether the request's bearer token is the policy's token.
    let readsBearer: Bool
    /// Whether the policy checks a credential (its token, or a rule such as `bearer` whose
    /// failure means "not authenticated"): then a refusal may be a 401; a policy that checks
    /// none denies with 403.
    let authenticates: Bool
    /// The ids of the rules whose failure means "not authenticated" (`RuleFailureMeaning`).
    let notAuthenticatedRules: Set<String>
    /// Each output's default header (`user` → `X-Auth-User`), named once, not per answer.
    let outputHeaders: [String: String]

    /// What judging a request came to.
    package enum Judgement: Sendable {
        /// The request cannot be judged as sent.
        case refused(FrontRefusal)
        /// The policy checks a bearer token and the request carries none it can read.
        case noCredential(BearerCredential.Problem)
        /// The verdict, and the token's claims as decoded.
        case judged(Verdict, claims: JSONObjectView?)
    }

    /// `policy` as a front applies it.
    package init(_ policy: Policy) {
        self.policy = policy
        readsBearer = policy.subjects.contains("token")
        notAuthenticatedRules = Set(policy.root.rules.filter { type(of: $0.rule).failureMeaning == .notAuthenticated }.map(\.id))
        authenticates = readsBearer || !notAuthenticatedRules.isEmpty
        outputHeaders = Dictionary(policy.outputs.map { ($0.name, OutputHeader.name(for: $0.name)) }) { first, _ in first }
    }

    /// Judges `request` at `now`: its bearer token, the request itself and its URL as a
    /// callback, as the policy's sections ask.
    ///
    /// - Throws: `EvaluationError` when the policy cannot judge requests as configured (an
    ///   input it requires and the caller does not give): the service's mistake, not the client's.
    package func judge(_ request: IncomingRequest, inputs: [String: JSONValue] = [:], signatureCache: SignatureCache? = nil,
                      now: UnixTime = .now) async throws(EvaluationError) -> Judgement {
        var token: String?
        if readsBearer {
            switch BearerCredential.token(in: request.fields[values: .authorization]) {
            case let .success(found): token = found
            case let .failure(problem): return .noCredential(problem)
            }
        }
        var subjects: [any PolicySubject] = []
        if policy.subjects.contains("request") {
            guard let subject = request.subject else { return .refused(Self.targetMissing) }
            subjects.append(subject)
        }
        if policy.subjects.contains("callback") {
            guard let url = request.url else { return .refused(Self.targetMissing) }
            subjects.append(CallbackSubject(url: url))
        }
        let evaluation = try await policy.evaluate(EvaluationRequest(token: token, subjects: subjects, inputs: inputs, now: now,
                                                                     clockSource: "server clock", signatureCache: signatureCache))
        return .judged(evaluation.verdict, claims: evaluation.token?.claims)
    }

    private static let targetMissing = FrontRefusal(code: "target_missing",
                                                    "the policy judges the request, and the call names no original target: the proxy must send X-Forwarded-Uri")

    /// The answer to `judgement`: 200 with the outputs as headers; 401 with an RFC 6750
    /// challenge when the credential is missing, not authentic, not current or not for us; 403
    /// when the policy denies an acceptable one; 400 when the request cannot be read.
    ///
    /// - Parameter outputHeaders: The outputs to send, by output name, with their header
    ///   names: exactly these go out. Nil sends every output as `X-Auth-<Name>`.
    package func answer(_ judgement: Judgement, outputHeaders: [String: String]? = nil) -> FrontAnswer {
        switch judgement {
        case let .refused(refusal):
            return FrontAnswer(refusal)
        case let .noCredential(.repeated(count)):
            return FrontAnswer(FrontRefusal(code: "header_repeated", "the request has \(count) Authorization headers; it must have at most one"))
        case .noCredential(.malformed):
            return FrontAnswer(status: .unauthorized, headers: [(.wwwAuthenticate, #"Bearer error="invalid_token", error_description="bearer_malformed""#)])
        case .noCredential:
            return FrontAnswer(status: .unauthorized, headers: [(.wwwAuthenticate, "Bearer")])
        case let .judged(verdict, _) where verdict.valid:
            let names = outputHeaders ?? self.outputHeaders
            return FrontAnswer(status: .ok, headers: verdict.outputs.keys.sorted().compactMap { name in
                names[name].flatMap { OutputHeader.field($0, verdict.outputs[name]!) }
            })
        case let .judged(verdict, _):
            guard authenticates else { return FrontAnswer(status: .forbidden, headers: []) }
            let authentic = verdict.verified && !verdict.findings.contains { notAuthenticatedRules.contains($0.rule) }
            // Only codes go into the header: a finding's message may echo what the token said.
            let codes = Array(Set(verdict.findings.map(\.code.rawValue))).sorted().joined(separator: " ")
            let error = authentic ? "insufficient_scope" : "invalid_token"
            return FrontAnswer(status: authentic ? .forbidden : .unauthorized,
                               headers: [(.wwwAuthenticate, "Bearer error=\"\(error)\", error_description=\"\(codes)\"")])
        }
    }
}
