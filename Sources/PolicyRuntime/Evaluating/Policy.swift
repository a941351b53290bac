public import Foundation

/// Whether evaluation stops at the first failed rule or reports every failure.
public enum EvaluationMode: String, Sendable, Codable, CaseIterable {
    case failFast = "fail_fast"
    case collectAll = "collect_all"
}

/// A compiled policy: immutable, `Sendable`, compiled once and evaluated many times from any thread.
public struct Policy: Sendable {
    /// The policy's `policy:` name, as verdicts report it.
    public let name: String
    /// The policy's `description`, if written.
    public let description: String?
    /// `fail_fast` or `collect_all`.
    public let mode: EvaluationMode
    /// The inputs the policy declares, which callers pass at evaluation.
    public let inputs: [InputDeclaration]
    /// The values a valid verdict hands over.
    public let outputs: [OutputDeclaration]
    /// The token's packaging and size bounds, applied before any rule runs.
    public let envelope: TokenEnvelope
    /// The JWS algorithms the `token` section allows, in policy order; empty without a token
    /// section and for `format: jwe`, whose tokens are never signed.
    public let algorithms: [JWSAlgorithm]
    /// The chain every subject goes through.
    public let root: ChainNode
    /// The files the policy was compiled from, the policy's own first, then its bases.
    public let files: [String]
    /// Lint warnings found while compiling (the policy compiled despite them).
    public let warnings: [Diagnostic]

    /// Every key source the policy names, for verification and decryption, in policy order.
    public let keySources: [KeySource]
    /// Where remote key sets are fetched and kept; shared with every policy compiled with it.
    public let keyCache: JWKSCache
    /// The `jwks_uri` and `discovery` sources among `keySources`, each once.
    public let remoteKeySources: [RemoteKeySource]
    /// The sections whose subject every evaluation must supply: `token`, `request`, `callback`.
    public let subjects: [String]
    /// The rules that check tokens inside the token, found once.
    let tokenEmbeddingRules: [any TokenEmbeddingRule]

    /// The policy the token in `claim` must satisfy (`embedded_tokens`), if the policy names one:
    /// what a test runner mints that token for.
    package func embeddedPolicy(at claim: ClaimPath) -> Policy? {
        tokenEmbeddingRules.first { $0.embeddedPolicy.claim == claim }?.embeddedPolicy.policy
    }

    init(name: String, description: String?, mode: EvaluationMode, inputs: [InputDeclaration], outputs: [OutputDeclaration],
         envelope: TokenEnvelope, algorithms: [JWSAlgorithm], root: ChainNode, files: [String], warnings: [Diagnostic], keySources: [KeySource], keyCache: JWKSCache,
         subjects: [String]) {
        self.name = name
        self.description = description
        self.mode = mode
        self.inputs = inputs
        self.outputs = outputs
        self.envelope = envelope
        self.algorithms = algorithms
        self.root = root
        self.files = files
        self.warnings = warnings
        self.keySources = keySources
        self.keyCache = keyCache
        self.subjects = subjects
        remoteKeySources = keySources.compactMap(\.remote).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        tokenEmbeddingRules = root.rules.compactMap { $0.rule as? any TokenEmbeddingRule }
    }

    func withWarnings(_ warnings: [Diagnostic]) -> Policy {
        Policy(name: name, description: description, mode: mode, inputs: inputs, outputs: outputs, envelope: envelope, algorithms: algorithms,
               root: root, files: files, warnings: warnings, keySources: keySources, keyCache: keyCache,
               subjects: subjects)
    }

    /// Evaluates the policy's subjects at `now` (seconds since the Unix epoch): a compact token
    /// (a JWS, or a JWE for `format: jwe | nested`) for a `token` section, and the subjects other
    /// sections read (a request, a callback). Remote keys are fetched when the cache cannot answer.
    ///
    /// - Parameters:
    ///   - token: The compact token, for a policy with a `token` section.
    ///   - subjects: The other subjects its sections read (`RequestSubject`, `CallbackSubject`).
    ///   - inputs: Values for the inputs the policy declares (`nonce`, `state`).
    ///   - now: The evaluation time; a batch passes each record's own.
    ///   - tracing: Whether the verdict carries a trace of every rule.
    ///   - clockSource: Where `now` came from, as the trace names it.
    ///   - signatureCache: Remembered signature checks and decoded tokens, for subjects that
    ///     repeat: the process's `SignatureCache.shared` unless given another; nil remembers none.
    /// - Returns: The verdict; `valid` only if every rule held and the token verified.
    /// - Throws: `EvaluationError` only for a caller mistake (a required input or subject
    ///   missing, an undeclared input, a subject the policy does not check); every problem with
    ///   the subjects themselves, unreachable keys included, is a finding in the verdict.
    public func evaluate(token: String? = nil, subjects supplied: [any PolicySubject] = [], inputs: [String: JSONValue] = [:], now: Double,
                         trace tracing: Bool = false, clockSource: String = "caller",
                         signatureCache: SignatureCache? = .shared) async throws(EvaluationError) -> Verdict {
        try await evaluateDecoding(token: token, subjects: supplied, inputs: inputs, now: now, trace: tracing, clockSource: clockSource,
                                   signatureCache: signatureCache).verdict
    }

    /// `evaluate`, with the token as it was decoded (its claims after any decryption): for the
    /// server's decision log, which writes the claims its configuration names without decoding
    /// the token a second time. Nil when the token could not be decoded.
    package func evaluateDecoding(token: String? = nil, subjects supplied: [any PolicySubject] = [], inputs: [String: JSONValue] = [:], now: Double,
                                  trace tracing: Bool = false, clockSource: String = "caller",
                                  signatureCache: SignatureCache? = nil) async throws(EvaluationError) -> (verdict: Verdict, token: DecodedToken?) {
        let request = EvaluationRequest(token: token, subjects: supplied, inputs: inputs, now: now, tracing: tracing, clockSource: clockSource,
                                        signatureCache: signatureCache)
        switch try start(request) {
        case let .finished(verdict, token): return (verdict, token)
        case let .waitingForKeys(pending): return await finish(pending)
        }
    }

    /// Evaluates without waiting for the network: the fast path for policies with local keys, or
    /// remote keys already cached.
    ///
    /// A name of its own, not an overload of `evaluate`: inside `async` code (a service's
    /// handler) Swift would pick the `async` `evaluate`, and a caller who wants the call that
    /// never suspends must be able to say so. Parameters and result are those of `evaluate`.
    ///
    /// - Throws: `EvaluationError` for a caller mistake, and `keys_not_cached` when a remote key
    ///   set would have to be fetched first (a cold cache, an expired set, an unknown `kid` that
    ///   may be refetched); that fetch is started in the background. Call `prefetch()` at
    ///   start-up, or use the `async` overload.
    public func evaluateNow(token: String? = nil, subjects supplied: [any PolicySubject] = [], inputs: [String: JSONValue] = [:], now: Double,
                            trace tracing: Bool = false, clockSource: String = "caller",
                            signatureCache: SignatureCache? = .shared) throws(EvaluationError) -> Verdict {
        let request = EvaluationRequest(token: token, subjects: supplied, inputs: inputs, now: now, tracing: tracing, clockSource: clockSource,
                                        signatureCache: signatureCache)
        switch try start(request) {
        case let .finished(verdict, _): return verdict
        case let .waitingForKeys(pending):
            throw EvaluationError(.keysNotCached, "the keys of \(pending.uncached) are not cached yet; await prefetch() or use the async evaluate")
        }
    }

    /// What one evaluation is asked to judge, and how.
    struct EvaluationRequest {
        let token: String?
        var subjects: [any PolicySubject] = []
        let inputs: [String: JSONValue]
        let now: Double
        var tracing = false
        var clockSource = "caller"
        let signatureCache: SignatureCache?
    }

    /// An evaluation whose subjects are checked and token decoded (once), waiting for remote keys.
    struct PendingEvaluation {
        fileprivate let prepared: Prepared
        let request: EvaluationRequest
        /// The first key source the cache could not answer for.
        let uncached: RemoteKeySource
    }

    /// How far `start` got.
    enum EvaluationStart {
        /// The verdict, and the token as decoded (batch summaries count by its issuer and kid).
        case finished(Verdict, DecodedToken?)
        /// The keys must be fetched first: `finish` does, without decoding the token again.
        case waitingForKeys(PendingEvaluation)
    }

    /// Checks the subjects, decodes the token and, when every remote key set it needs is cached
    /// (or it needs none), judges it; the one path of every evaluation.
    func start(_ request: EvaluationRequest) throws(EvaluationError) -> EvaluationStart {
        switch try prepare(token: request.token, subjects: request.subjects, inputs: request.inputs, now: request.now, tracing: request.tracing,
                           clockSource: request.clockSource, signatureCache: request.signatureCache) {
        case let .refused(verdict):
            return .finished(verdict, nil)
        case let .ready(prepared):
            switch cachedKeySets(for: prepared) {
            case let .success(keySets): return .finished(run(prepared, keySets: keySets, request), prepared.token)
            case let .failure(uncached): return .waitingForKeys(PendingEvaluation(prepared: prepared, request: request, uncached: uncached.source))
            }
        }
    }

    /// Fetches the keys `pending` waits for, then judges it.
    func finish(_ pending: PendingEvaluation) async -> (verdict: Verdict, token: DecodedToken?) {
        var keySets: [RemoteKeySource: KeyResolution] = [:]
        let prepared = pending.prepared
        if let jws = prepared.token?.jws {
            for source in remoteKeySources { keySets[source] = await keyCache.resolve(source, kid: jws.header.kid) }
        }
        // Tokens inside subjects and claims are checked by policies these rules name, which share
        // the cache and answer from it synchronously: fetch what they will need now.
        for token in embeddedTokens(prepared) {
            let kid = (try? CompactJWS(token))?.header.kid
            for source in remoteKeySources { _ = await keyCache.resolve(source, kid: kid) }
        }
        return (run(prepared, keySets: keySets, pending.request), prepared.token)
    }

    /// The tokens inside the subjects (a request's bearer token) and inside the token's claims
    /// that rules will check with the policies they name.
    private func embeddedTokens(_ prepared: Prepared) -> [String] {
        let inSubjects = prepared.subjects.values.flatMap(\.embeddedTokens)
        guard let token = prepared.token else { return inSubjects }
        return inSubjects + tokenEmbeddingRules.flatMap { $0.embeddedTokens(in: token) }
    }

    private struct Uncached: Error {
        let source: RemoteKeySource
    }

    /// The remote key sets the token and the tokens inside subjects need, from the cache alone;
    /// the first source it cannot answer for otherwise (its fetch is started in the background).
    private func cachedKeySets(for prepared: Prepared) -> Result<[RemoteKeySource: KeyResolution], Uncached> {
        var keySets: [RemoteKeySource: KeyResolution] = [:]
        guard !remoteKeySources.isEmpty else { return .success(keySets) }
        if let jws = prepared.token?.jws {
            for source in remoteKeySources {
                guard let resolution = keyCache.cachedResolution(source, kid: jws.header.kid) else { return .failure(Uncached(source: source)) }
                keySets[source] = resolution
            }
        }
        for token in embeddedTokens(prepared) {
            let kid = (try? CompactJWS(token))?.header.kid
            for source in remoteKeySources where keyCache.cachedResolution(source, kid: kid) == nil {
                return .failure(Uncached(source: source))
            }
        }
        return .success(keySets)
    }

    /// Evaluates at a `Date`, fetching remote keys when needed; `signatureCache` as in
    /// `evaluate(token:subjects:inputs:now:...)`.
    public func evaluate(token: String, inputs: [String: JSONValue] = [:], at date: Date = Date(), trace: Bool = false,
                         signatureCache: SignatureCache? = .shared) async throws(EvaluationError) -> Verdict {
        try await evaluate(token: token, inputs: inputs, now: date.timeIntervalSince1970, trace: trace, clockSource: "caller", signatureCache: signatureCache)
    }

    /// Evaluates at a `Date` without waiting for the network (see `evaluateNow(token:subjects:inputs:now:...)`).
    public func evaluateNow(token: String, inputs: [String: JSONValue] = [:], at date: Date = Date(), trace: Bool = false,
                            signatureCache: SignatureCache? = .shared) throws(EvaluationError) -> Verdict {
        try evaluateNow(token: token, inputs: inputs, now: date.timeIntervalSince1970, trace: trace, clockSource: "caller", signatureCache: signatureCache)
    }

    /// Fetches every remote key set the policy names, so first evaluations need not wait;
    /// throws the first source's failure. Sets already cached and fresh are not fetched again.
    public func prefetch() async throws(KeyFetchError) {
        for source in remoteKeySources {
            if case let .unavailable(error) = await keyCache.resolve(source, kid: nil, untilFetched: true) { throw error }
        }
    }

    /// What an evaluation works on once its subjects are checked and its token decoded.
    fileprivate struct Prepared {
        let inputs: [String: JSONValue]
        let token: DecodedToken?
        let subjects: [String: any PolicySubject]
    }

    private enum Preparation {
        case ready(Prepared)
        /// The token failed before any rule could run; this is its verdict.
        case refused(Verdict)
    }

    private func prepare(token: String?, subjects given: [any PolicySubject], inputs supplied: [String: JSONValue],
                         now: Double, tracing: Bool, clockSource: String, signatureCache: SignatureCache?) throws(EvaluationError) -> Preparation {
        let inputs = try resolveInputs(supplied)
        var bySection: [String: any PolicySubject] = [:]
        for subject in given {
            let section = type(of: subject).section
            guard subjects.contains(section) else {
                throw EvaluationError(.unexpectedSubject, "the policy has no '\(section)' section to check a \(section) with")
            }
            bySection[section] = subject
        }
        if token != nil, !subjects.contains("token") {
            throw EvaluationError(.unexpectedSubject, "the policy has no 'token' section to check a token with")
        }
        for section in subjects where section == "token" ? token == nil : bySection[section] == nil {
            throw EvaluationError(.missingSubject, "the policy checks a \(section), and none was given")
        }
        guard let token else { return .ready(Prepared(inputs: inputs, token: nil, subjects: bySection)) }
        let decoding: Result<DecodedToken, TokenDecoder.Failure>
        if let cache = signatureCache?.decodedTokens, envelope.format == .jws, envelope.decryption == nil {
            decoding = cache.decoded(token, limits: envelope.limits) { TokenDecoder.decode(token, envelope: envelope) }
        } else {
            decoding = TokenDecoder.decode(token, envelope: envelope)
        }
        switch decoding {
        case let .success(decoded):
            return .ready(Prepared(inputs: inputs, token: decoded, subjects: bySection))
        case let .failure(failure):
            var trace = tracing ? Trace(clock: .init(now: now, iso8601: UnixTime.iso8601(now), source: clockSource)) : nil
            let at = failure.location?.description ?? (files.first ?? name) + ":1:1"
            let located = Finding(rule: failure.rule, code: failure.code, message: failure.message, at: at)
            if tracing {
                trace?.entries.append(.init(rule: failure.rule, status: .fail, at: at, detail: failure.message))
                for rule in root.rules { trace?.entries.append(.init(rule: rule.id, status: .notRun, at: rule.location.description, detail: "the token could not be \(failure.rule == "token.decryption" ? "decrypted" : "decoded")")) }
            }
            // A plain JWE that decrypted proved its origin even when its payload is unusable.
            let provenBy = envelope.format == .jwe ? failure.decryptedBy : nil
            if tracing, let key = failure.decryptedBy { trace?.key = key }
            return .refused(Verdict(policy: name, valid: false, provenBy: provenBy, keyFreshness: nil, findings: [located], skipped: [], outputs: [:], trace: trace))
        }
    }

    private func run(_ prepared: Prepared, keySets: [RemoteKeySource: KeyResolution], _ request: EvaluationRequest) -> Verdict {
        let (now, tracing, clockSource, signatureCache) = (request.now, request.tracing, request.clockSource, request.signatureCache)
        var trace = tracing ? Trace(clock: .init(now: now, iso8601: UnixTime.iso8601(now), source: clockSource)) : nil
        let decoded = prepared.token
        let context = EvaluationContext(now: now, inputs: prepared.inputs, token: decoded, subjects: prepared.subjects,
                                        keySets: keySets, signatureCache: signatureCache, tracing: tracing)
        var evaluator = ChainEvaluator(context: context, failFast: mode == .failFast)
        // A failure may carry no finding (a rule blocked by another's failure), so `passed` is
        // not the same as "no findings".
        let (passed, findings): (Bool, [Finding])
        switch evaluator.run(root) {
        case .pass, .skipped: (passed, findings) = (true, [])
        case let .fail(found, _): (passed, findings) = (false, found)
        }
        // A plain JWE carries no signature: authenticated decryption is what proves its origin.
        let provenBy = envelope.format == .jwe ? decoded?.decryptedBy : evaluator.verifiedKey
        let verified = provenBy != nil
        // A token must prove its origin; requests, callbacks and PKCE values carry no signature.
        let valid = passed && (verified || decoded == nil)
        if let decryption = envelope.decryption, let key = decoded?.decryptedBy {
            trace?.entries.append(.init(rule: "token.decryption", status: .pass, at: decryption.location.description,
                                        detail: "decrypted with \(key.kid.map { "kid '\($0)'" } ?? "a key without kid") from \(key.source)"))
        }
        trace?.entries += evaluator.entries
        trace?.key = provenBy
        // Operators watch this field for outages: a verdict reached with stale keys says so.
        let keyFreshness = keySets.isEmpty ? nil : provenBy?.freshness ?? keySets.values.map(\.freshness).max()
        return Verdict(policy: name, valid: valid, provenBy: provenBy, keyFreshness: keyFreshness, findings: findings,
                       skipped: evaluator.skipped, outputs: valid ? evaluator.outputs.merging(outputValues(decoded)) { $1 } : [:], trace: trace)
    }

    func resolveInputs(_ supplied: [String: JSONValue]) throws(EvaluationError) -> [String: JSONValue] {
        let undeclared = supplied.keys.filter { name in !inputs.contains { $0.name == name } }
        if let unknown = undeclared.min() {
            throw EvaluationError(.unknownInput, "the policy declares no input '\(unknown)'"
                                  + (Suggestion.didYouMean(unknown, among: inputs.map(\.name)).map { "; \($0)" } ?? ""))
        }
        var resolved: [String: JSONValue] = [:]
        for input in inputs {
            if let value = supplied[input.name] ?? input.defaultValue {
                resolved[input.name] = value
            } else if input.required {
                throw EvaluationError(.missingInput, "the policy requires the input '\(input.name)'" + (input.description.map { " (\($0))" } ?? ""))
            }
        }
        return resolved
    }

    private func outputValues(_ token: DecodedToken?) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        guard let token else { return values }
        for output in outputs {
            switch output.source {
            case let .claim(path): values[output.name] = path.value(in: token.claims)
            case let .header(path): values[output.name] = path.value(in: token.header.object)
            }
        }
        return values
    }

}

/// A caller mistake that stops an evaluation before it starts.
public struct EvaluationError: Error, Sendable, CustomStringConvertible {
    /// The stable kind of a caller mistake.
    public enum Code: String, Sendable {
        case missingInput = "missing_input"
        case unknownInput = "unknown_input"
        /// The synchronous `evaluate` needs a remote key set that is not in the cache.
        case keysNotCached = "keys_not_cached"
        /// A section's subject (token, request, callback) was not given.
        case missingSubject = "missing_subject"
        /// A subject was given that no section of the policy checks.
        case unexpectedSubject = "unexpected_subject"
    }

    /// The stable kind of mistake.
    public let code: Code
    /// What to fix.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, as a user reads it.
    public var description: String { message }
}
