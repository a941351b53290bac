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
    /// Whether the request's `Authorization` token is the policy's token.
    let readsToken: Bool
    /// The policy's `dpop` rule, when it has one: then the `DPoP` scheme is accepted, and
    /// refusals are answered with DPoP challenges (RFC 9449 §7.1).
    let dpop: DPoPRequirement?
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
        /// The policy checks a token and the request carries none it can read.
        case noCredential(AuthorizationCredential.Problem)
        /// The verdict, the token's claims as decoded, and the scheme the token came with.
        case judged(Verdict, claims: JSONObjectView?, scheme: AuthorizationCredential.Scheme?, nonce: String?)
    }

    /// `policy` as a front applies it.
    package init(_ policy: Policy) {
        self.policy = policy
        readsToken = policy.subjects.contains("token")
        dpop = DPoPRequirement(policy)
        notAuthenticatedRules = Set(policy.root.rules.filter { type(of: $0.rule).failureMeaning == .notAuthenticated }.map(\.id))
        authenticates = readsToken || !notAuthenticatedRules.isEmpty
        outputHeaders = Dictionary(policy.outputs.map { ($0.name, OutputHeader.name(for: $0.name)) }) { first, _ in first }
    }

    /// Judges `request` at `now`: its bearer token, the request itself and its URL as a
    /// callback, as the policy's sections ask.
    ///
    /// - Throws: `EvaluationError` when the policy cannot judge requests as configured (an
    ///   input it requires and the caller does not give): the service's mistake, not the client's.
    package func judge(_ request: IncomingRequest, inputs: [String: JSONValue] = [:], signatureCache: SignatureCache? = nil,
                      replayStore: any ReplayStore = MemoryReplayStore.shared, now: UnixTime = .now) async throws(EvaluationError) -> Judgement {
        var token: String?
        var scheme: AuthorizationCredential.Scheme?
        if readsToken {
            switch AuthorizationCredential.read(request.fields[values: .authorization]) {
            // Without a `dpop` rule nothing checks the proof: the token would pass as a bearer token.
            case let .success(found) where found.scheme == .dpop && dpop == nil: return .noCredential(.otherScheme)
            case let .success(found): (token, scheme) = (found.token, found.scheme)
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
                                                                     clockSource: "server clock", signatureCache: signatureCache, replayStore: replayStore))
        let verdict = evaluation.verdict
        var nonce: String?
        if let expected = dpop?.nonce, verdict.findings.contains(where: { $0.code == .useDPoPNonce }) {
            nonce = (try? policy.resolveInputs(inputs)).flatMap { expected.resolve($0)?.stringValue }
        }
        return .judged(verdict, claims: evaluation.token?.claims, scheme: scheme, nonce: nonce)
    }

    private static let targetMissing = FrontRefusal(code: "target_missing",
                                                    "the policy judges the request, and the call names no original target: the proxy must send X-Forwarded-Uri")

    /// The answer to `judgement`: 200 with the outputs as headers; 401 with an RFC 6750 (or, for
    /// a policy with `dpop`, RFC 9449) challenge when the credential is missing, not authentic,
    /// not current or not for us; 403 when the policy denies an acceptable one; 400 when the
    /// request cannot be read.
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
            return FrontAnswer(status: .unauthorized, headers: challenges(error: "invalid_token", description: "bearer_malformed"))
        case .noCredential:
            return FrontAnswer(status: .unauthorized, headers: challenges())
        case let .judged(verdict, _, _, _) where verdict.valid:
            let names = outputHeaders ?? self.outputHeaders
            return FrontAnswer(status: .ok, headers: verdict.outputs.keys.sorted().compactMap { name in
                names[name].flatMap { OutputHeader.field($0, verdict.outputs[name]!) }
            })
        case let .judged(verdict, _, _, _) where verdict.findings.contains(where: { $0.code == .replayStoreUnavailable }):
            // The server cannot tell whether a value was used before: its failure, not the client's.
            return FrontAnswer(status: .serviceUnavailable, headers: [(.retryAfter, "1")])
        case let .judged(verdict, _, scheme, nonce):
            guard authenticates else { return FrontAnswer(status: .forbidden, headers: []) }
            let authentic = verdict.verified && !verdict.findings.contains { notAuthenticatedRules.contains($0.rule) }
            // Only codes go into the header: a finding's message may echo what the token said.
            let codes = Array(Set(verdict.findings.map(\.code.rawValue))).sorted().joined(separator: " ")
            if authentic {
                return FrontAnswer(status: .forbidden, headers: challenges(error: "insufficient_scope", description: codes, scheme: scheme))
            }
            guard dpop != nil else { return FrontAnswer(status: .unauthorized, headers: challenges(error: "invalid_token", description: codes)) }
            let found = Set(verdict.findings.map(\.code))
            if found.contains(.useDPoPNonce), let nonce {
                return FrontAnswer(status: .unauthorized, headers: challenges(error: "use_dpop_nonce", description: codes, scheme: .dpop) + [(Self.dpopNonce, nonce)])
            }
            let error = found.isDisjoint(with: DPoPRequirement.proofCodes) ? "invalid_token" : "invalid_dpop_proof"
            return FrontAnswer(status: .unauthorized, headers: challenges(error: error, description: codes, scheme: error == "invalid_dpop_proof" ? .dpop : scheme))
        }
    }

    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!

    /// The `WWW-Authenticate` challenges of a refusal: `Bearer` (RFC 6750 §3) for a policy
    /// without `dpop`; `DPoP` with the algorithms it accepts (RFC 9449 §7.1) for one with it, and
    /// `Bearer` beside it while DPoP is optional. An error goes into the challenge of the scheme
    /// the client used (`DPoP` when it is the only one).
    private func challenges(error: String? = nil, description: String? = nil, scheme: AuthorizationCredential.Scheme? = nil) -> [(HTTPField.Name, String)] {
        func challenge(_ name: AuthorizationCredential.Scheme, _ parameters: [String]) -> (HTTPField.Name, String) {
            (.wwwAuthenticate, parameters.isEmpty ? name.rawValue : "\(name.rawValue) " + parameters.joined(separator: ", "))
        }
        var errorParameters: [String] = []
        if let error { errorParameters.append("error=\"\(error)\"") }
        if let description, !description.isEmpty { errorParameters.append("error_description=\"\(description)\"") }
        guard let dpop else { return [challenge(.bearer, errorParameters)] }
        let erring: AuthorizationCredential.Scheme = dpop.required ? .dpop : scheme ?? .dpop
        let algs = "algs=\"\(dpop.algorithms.map(\.rawValue).joined(separator: " "))\""
        var answer = [challenge(.dpop, (erring == .dpop ? errorParameters : []) + [algs])]
        if !dpop.required { answer.append(challenge(.bearer, erring == .bearer ? errorParameters : [])) }
        return answer
    }
}
