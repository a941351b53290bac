@_spi(RuleAuthoring) public import PolicyJOSE

/// What one evaluation is asked to judge, and how: the one value every way of evaluating
/// builds (`Policy.evaluate`, `evaluateNow`, batch, the server, the middleware).
public struct EvaluationRequest: Sendable {
    /// The compact token, for a policy with a `token` section (a JWS, or a JWE for
    /// `format: jwe | nested`).
    public var token: String? {
        get { presentedToken?.text }
        set { presentedToken = newValue.map(TokenText.init) }
    }
    /// The token as given: its text, or the bytes of the log line that holds it (a batch's), which
    /// the evaluation reads without making a string of them.
    package var presentedToken: TokenText?
    /// The other subjects its sections read (`RequestSubject`, `CallbackSubject`).
    public var subjects: [any PolicySubject]
    /// Values for the inputs the policy declares (`nonce`, `state`).
    public var inputs: [String: JSONValue]
    /// The time the subjects are judged at; a batch passes each record's own.
    public var now: UnixTime
    /// Whether the verdict carries a trace of every rule.
    public var trace: Bool
    /// Where `now` came from, as the trace names it.
    public var clockSource: String
    /// Remembered signature checks and decoded tokens, for subjects that repeat: the process's
    /// `SignatureCache.shared` unless given another; nil remembers none.
    public var signatureCache: SignatureCache?
    /// Where values that may be used once (a DPoP proof's `jti`) are recorded: the process's
    /// `MemoryReplayStore.shared` unless given another (PostgreSQL, for servers that share
    /// one). Nil records none, and a policy that needs one then refuses as undecided.
    public var replayStore: (any ReplayStore)?
    /// Tokens the enclosing evaluation decoded already (under standard limits), for the nested
    /// evaluation of a `bearer` or `embedded_tokens` rule: a token inside a request is split once.
    package var decoded: [String: DecodedToken]?
    /// `DecodedTokenCache.Key.digest(of:)` of the token's bytes, when the caller took it already: a batch
    /// hashes a record's token once, for its verdicts and for the decoded tokens.
    package var tokenDigest: Int?
    /// Whether a signed token is looked up among, and kept with, the signature cache's decoded
    /// tokens. A batch with a verdict memo turns it off: the memo answers a repeated token before
    /// any decoding, and a second table probed for every record costs a cache miss on each
    /// record of a log of unique tokens.
    package var usesDecodedTokenCache = true
    /// The headers and claim layouts decoding reuses, in place of the policy's own: a batch
    /// worker's, which no other thread locks or reference-counts (`DecodingMemory`).
    package var decodingMemory: DecodingMemory?

    /// A request to judge `token` and `subjects` with `inputs` at `now`: the wall clock's time
    /// when nil (and the trace says so), otherwise the `clockSource` given, `caller` by default.
    public init(token: String? = nil, subjects: [any PolicySubject] = [], inputs: [String: JSONValue] = [:], now: UnixTime? = nil,
                trace: Bool = false, clockSource: String? = nil, signatureCache: SignatureCache? = .shared,
                replayStore: (any ReplayStore)? = MemoryReplayStore.shared) {
        presentedToken = token.map(TokenText.init)
        self.replayStore = replayStore
        self.subjects = subjects
        self.inputs = inputs
        self.now = now ?? .now
        self.trace = trace
        self.clockSource = clockSource ?? (now == nil ? "wall clock" : "caller")
        self.signatureCache = signatureCache
    }
}

/// A finished evaluation: the verdict, and the token as it was decoded (its claims after any
/// decryption; nil without a token or when it could not be decoded), for callers that log or
/// count by its claims without decoding it a second time.
public struct Evaluation: Sendable {
    /// The verdict.
    public let verdict: Verdict
    /// The token as decoded.
    public let token: DecodedToken?
    /// The times at which the same request would get this verdict, byte for byte, when the
    /// evaluation can tell (`Policy.verdictsReusable`, no trace, no one-time values); nil
    /// otherwise. What a batch keeps a repeated token's verdict for (`VerdictMemo`).
    package var stableWithin: TimeWindow? = nil
}

/// How far `Policy.start` got.
public enum EvaluationStep: Sendable {
    /// Judged from what the process holds.
    case finished(Evaluation)
    /// A remote key set must be fetched first: `Policy.finish` does.
    case waitingForKeys(PendingEvaluation)
    /// Every rule held, and the one-time values the request used must be recorded in a replay
    /// store that must be waited for (a database): `Policy.finish` does.
    case waitingForReplayStore(PendingEvaluation)
}

/// An evaluation whose subjects are checked and token decoded (once), waiting for remote keys
/// or, once judged, for its replay store.
public struct PendingEvaluation: Sendable {
    enum Stage: Sendable {
        case keys(Policy.Prepared)
        case replayStore(Policy.Judged, token: DecodedToken?, store: any ReplayStore)
    }

    let stage: Stage
    let request: EvaluationRequest
    /// The first key source the cache could not answer for; nil when the evaluation waits for
    /// its replay store.
    public let uncached: RemoteKeySource?
}

/// Evaluating a policy: `start` judges what can be judged at once, `finish` what waits for
/// keys; `evaluate` and `evaluateNow` are the two put together.
extension Policy {
    /// Evaluates `request`, fetching remote keys when the cache cannot answer.
    ///
    /// - Returns: The verdict (`valid` only if every rule held and the token verified), with
    ///   the token as decoded.
    /// - Throws: `EvaluationError` only for a caller mistake (a required input or subject
    ///   missing, an undeclared input, a subject the policy does not check); every problem with
    ///   the subjects themselves, unreachable keys included, is a finding in the verdict.
    public func evaluate(_ request: EvaluationRequest) async throws(EvaluationError) -> Evaluation {
        switch try start(request) {
        case let .finished(evaluation): evaluation
        case let .waitingForKeys(pending), let .waitingForReplayStore(pending): await finish(pending)
        }
    }

    /// Evaluates `request` without waiting for the network: the fast path for policies with
    /// local keys, or remote keys already cached.
    ///
    /// A name of its own, not an overload of `evaluate`: inside `async` code (a service's
    /// handler) Swift would pick the `async` `evaluate`, and a caller who wants the call that
    /// never suspends must be able to say so.
    ///
    /// - Throws: `EvaluationError` for a caller mistake, and `keys_not_cached` when a remote key
    ///   set would have to be fetched first (a cold cache, an expired set, an unknown `kid` that
    ///   may be refetched); that fetch is started in the background. Call `prefetch()` at
    ///   start-up, or use the `async` `evaluate`.
    public func evaluateNow(_ request: EvaluationRequest) throws(EvaluationError) -> Evaluation {
        switch try start(request) {
        case let .finished(evaluation):
            return evaluation
        case let .waitingForKeys(pending):
            throw EvaluationError(.keysNotCached, "the keys of \(pending.uncached.map { "\($0)" } ?? "the policy") are not cached yet; await prefetch() or use the async evaluate")
        case .waitingForReplayStore:
            throw EvaluationError(.replayStoreAsync, "the request's one-time values must be recorded in a replay store that cannot answer at once; use the async evaluate")
        }
    }

    /// `evaluate(_:)` with the request's members as arguments, for the verdict alone.
    public func evaluate(token: String? = nil, subjects: [any PolicySubject] = [], inputs: [String: JSONValue] = [:], now: UnixTime? = nil,
                         trace: Bool = false, clockSource: String? = nil,
                         signatureCache: SignatureCache? = .shared) async throws(EvaluationError) -> Verdict {
        try await evaluate(EvaluationRequest(token: token, subjects: subjects, inputs: inputs, now: now, trace: trace, clockSource: clockSource,
                                             signatureCache: signatureCache)).verdict
    }

    /// `evaluateNow(_:)` with the request's members as arguments, for the verdict alone.
    public func evaluateNow(token: String? = nil, subjects: [any PolicySubject] = [], inputs: [String: JSONValue] = [:], now: UnixTime? = nil,
                            trace: Bool = false, clockSource: String? = nil,
                            signatureCache: SignatureCache? = .shared) throws(EvaluationError) -> Verdict {
        try evaluateNow(EvaluationRequest(token: token, subjects: subjects, inputs: inputs, now: now, trace: trace, clockSource: clockSource,
                                          signatureCache: signatureCache)).verdict
    }

    /// Checks the subjects, decodes the token and, when every remote key set it needs is cached
    /// (or it needs none), judges it: the first step of every evaluation, which never waits.
    ///
    /// - Returns: The evaluation, or what it waits for: `finish` fetches the keys and judges
    ///   it, without decoding the token again.
    /// - Throws: `EvaluationError` for a caller mistake (see `evaluate(_:)`).
    public func start(_ request: EvaluationRequest) throws(EvaluationError) -> EvaluationStep {
        switch try prepare(request) {
        case let .refused(verdict):
            return .finished(Evaluation(verdict: verdict, token: nil))
        case let .ready(prepared):
            return start(prepared, request)
        }
    }

    /// `start` once the subjects are checked and the token decoded: `prepared` is handed on, not
    /// copied, to the evaluation's context.
    private func start(_ prepared: consuming Prepared, _ request: EvaluationRequest) -> EvaluationStep {
        if !prepared.subjects.isEmpty || !tokenEmbeddingRules.isEmpty { prepared.embedded = decodeEmbedded(prepared, request) }
        switch cachedKeySets(for: prepared) {
        case let .success(keySets):
            let token = prepared.token
            let judged = run(consume prepared, keySets: keySets, request)
            switch settle(judged, token: token, request) {
            case let .finished(evaluation): return .finished(evaluation)
            case let .waiting(store):
                return .waitingForReplayStore(PendingEvaluation(stage: .replayStore(judged, token: token, store: store), request: request, uncached: nil))
            }
        case let .failure(uncached): return .waitingForKeys(PendingEvaluation(stage: .keys(prepared), request: request, uncached: uncached.source))
        }
    }

    /// Fetches the keys `pending` waits for (each source at most its `max_wait`), then judges it:
    /// the second step of an evaluation `start` could not finish.
    public func finish(_ pending: PendingEvaluation) async -> Evaluation {
        let prepared: Prepared
        switch pending.stage {
        case let .keys(waiting): prepared = waiting
        case let .replayStore(judged, token, store): return await record(judged, token: token, in: store, pending.request)
        }
        var keySets: [RemoteKeySource: KeyResolution] = [:]
        if let token = prepared.token, let jws = token.jws {
            // The other signatures first: the set as resolved for the claims' token's `kid` is
            // the one its verdict reports.
            for other in token.otherSignedTokens {
                for source in remoteKeySources { keySets[source] = await keyCache.resolve(source, kid: other.keyID) }
            }
            for source in remoteKeySources { keySets[source] = await keyCache.resolve(source, kid: jws.keyID) }
        }
        // Tokens inside subjects and claims are checked by policies these rules name, which share
        // the cache and answer from it synchronously: fetch what they will need now.
        for token in embeddedTokens(prepared) {
            let kid = prepared.embedded?[token]?.keyID
            for source in remoteKeySources { _ = await keyCache.resolve(source, kid: kid) }
        }
        let token = prepared.token
        let judged = run(consume prepared, keySets: keySets, pending.request)
        switch settle(judged, token: token, pending.request) {
        case let .finished(evaluation): return evaluation
        case let .waiting(store): return await record(judged, token: token, in: store, pending.request)
        }
    }

    /// The tokens inside the subjects (a request's bearer token) and inside the token's claims
    /// that rules will check with the policies they name.
    private func embeddedTokens(_ prepared: Prepared) -> [String] {
        let inSubjects = prepared.subjects.values.flatMap(\.embeddedTokens)
        guard let token = prepared.token else { return inSubjects }
        return inSubjects + tokenEmbeddingRules.flatMap { $0.embeddedTokens(in: token) }
    }

    /// The embedded tokens that decode under standard limits, each decoded once: through the
    /// signature cache's decoded tokens when there is one (a session's token is then not split
    /// again), and taken from `request.decoded` when the enclosing evaluation decoded it.
    private func decodeEmbedded(_ prepared: Prepared, _ request: EvaluationRequest) -> [String: DecodedToken]? {
        var decoded: [String: DecodedToken] = [:]
        for token in embeddedTokens(prepared) where decoded[token] == nil {
            if case let .success(found) = Self.decodeStandard(token, request) { decoded[token] = found }
        }
        return decoded.isEmpty ? nil : decoded
    }

    /// `token` as a signed token under standard limits, as `decodeEmbedded` keeps it.
    private static func decodeStandard(_ token: String, _ request: EvaluationRequest) -> Result<DecodedToken, TokenDecoder.Failure> {
        let text = TokenText(token)
        if let known = request.decoded?[token] { return .success(remembered(known, as: text, request)) }
        guard let cache = request.signatureCache?.decodedTokens else { return TokenDecoder.decode(text, envelope: .standard, digesting: false) }
        return cache.decoded(text, limits: TokenEnvelope.standard.limits) { TokenDecoder.decode(text, envelope: .standard, digesting: true) }
    }

    /// `known`, which the enclosing evaluation decoded, counted as a sighting of `token` by the
    /// process's decoded-token cache, so a token seen again is kept as one looked up would be.
    private static func remembered(_ known: DecodedToken, as token: TokenText, _ request: EvaluationRequest) -> DecodedToken {
        request.signatureCache?.decodedTokens.remember(known, as: token, limits: TokenEnvelope.standard.limits)
        return known
    }

    private struct Uncached: Error {
        let source: RemoteKeySource
    }

    /// The remote key sets the token and the tokens inside subjects need, from the cache alone;
    /// the first source it cannot answer for otherwise (its fetch is started in the background).
    private func cachedKeySets(for prepared: Prepared) -> Result<[RemoteKeySource: KeyResolution], Uncached> {
        var keySets: [RemoteKeySource: KeyResolution] = [:]
        guard !remoteKeySources.isEmpty else { return .success(keySets) }
        if let token = prepared.token, let jws = token.jws {
            for other in token.otherSignedTokens {
                for source in remoteKeySources where keyCache.cachedResolution(source, kid: other.keyID) == nil {
                    return .failure(Uncached(source: source))
                }
            }
            for source in remoteKeySources {
                guard let resolution = keyCache.cachedResolution(source, kid: jws.keyID) else { return .failure(Uncached(source: source)) }
                keySets[source] = resolution
            }
        }
        for token in embeddedTokens(prepared) {
            let kid = prepared.embedded?[token]?.keyID
            for source in remoteKeySources where keyCache.cachedResolution(source, kid: kid) == nil {
                return .failure(Uncached(source: source))
            }
        }
        return .success(keySets)
    }

    /// Fetches every remote key set the policy names, so first evaluations need not wait;
    /// throws the first source's failure. Sets already cached and fresh are not fetched again.
    public func prefetch() async throws(KeyFetchError) {
        for source in remoteKeySources {
            if case let .unavailable(error) = await keyCache.resolve(source, kid: nil, untilFetched: true) { throw error }
        }
    }

    /// What an evaluation works on once its subjects are checked and its token decoded; its
    /// `EvaluationContext` holds it whole, moved in, and rules read its fields in place.
    @usableFromInline struct Prepared: Sendable {
        @usableFromInline let inputs: [String: JSONValue]
        @usableFromInline var token: DecodedToken?
        /// The token as presented, for rules bound to its exact text (a DPoP proof's `ath`).
        var tokenText: TokenText?
        @usableFromInline let subjects: [String: any PolicySubject]
        /// The tokens inside the subjects and the token's claims that rules will judge with the
        /// policies they name, decoded once: their `kid`s choose the key sets to have at hand,
        /// and the nested evaluations take them as decoded.
        var embedded: [String: DecodedToken]?
    }

    private enum Preparation {
        case ready(Prepared)
        /// The token failed before any rule could run; this is its verdict.
        case refused(Verdict)
    }

    private func prepare(_ request: EvaluationRequest) throws(EvaluationError) -> Preparation {
        // The request's fields are read where they are used: bound to locals up front, each was
        // retained and released once more per evaluation.
        let token = request.presentedToken ?? (subjects.contains("token") ? request.subjects.lazy.compactMap(\.presentedToken).first.map(TokenText.init) : nil)
        let inputs = try resolveInputs(request.inputs)
        var bySection: [String: any PolicySubject] = [:]
        for subject in request.subjects {
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
        /// Decoded with the request's memory or the policy's, each asked where it is stored: a
        /// copy of either retained and released its caches around every call.
        func decode(digesting: Bool) -> Result<DecodedToken, TokenDecoder.Failure> {
            request.decodingMemory?.decode(token, envelope: envelope, digesting: digesting)
                ?? decodingMemory.decode(token, envelope: envelope, digesting: digesting)
        }
        let decoding: Result<DecodedToken, TokenDecoder.Failure>
        if let decoded = request.decoded, let known = decoded[token.text], envelope.format == .jws, envelope.decryption == nil,
           envelope.limits == TokenEnvelope.standard.limits {
            decoding = .success(Self.remembered(known, as: token, request))
        } else if request.usesDecodedTokenCache, let cache = request.signatureCache?.decodedTokens, envelope.format == .jws, envelope.decryption == nil {
            decoding = cache.decoded(token, limits: envelope.limits, digest: request.presentedToken == nil ? nil : request.tokenDigest) {
                decode(digesting: true)
            }
        } else {
            decoding = decode(digesting: request.signatureCache != nil)
        }
        switch consume decoding {
        case let .success(decoded):
            return .ready(Prepared(inputs: inputs, token: decoded, tokenText: token, subjects: bySection))
        case let .failure(failure):
            let tracing = request.trace
            var trace = tracing ? Trace(clock: .init(now: request.now, source: request.clockSource)) : nil
            let at = failure.location?.description ?? (files.first ?? name) + ":1:1"
            let located = Finding(rule: failure.rule, code: failure.code, message: failure.message, at: at)
            if tracing {
                trace?.entries.append(.init(rule: failure.rule, status: .fail, at: at, detail: failure.message))
                for rule in root.rules { trace?.entries.append(.init(rule: rule.id, status: .notRun, at: rule.locationText, detail: "the token could not be \(failure.rule == "token.decryption" ? "decrypted" : "decoded")")) }
            }
            // A plain JWE that decrypted proved its origin even when its payload is unusable.
            let provenBy = envelope.format == .jwe ? failure.decryptedBy : nil
            if tracing, let key = failure.decryptedBy { trace?.key = key }
            return .refused(Verdict(policy: name, valid: false, provenBy: provenBy, keyFreshness: nil, findings: [located], skipped: [], outputs: [:], trace: trace))
        }
    }

    /// The verdict on `prepared`: for a JWS in general JSON serialization, the verdict of the
    /// first signature the policy holds for (`signatures: any`) or of the first it does not
    /// hold for (`all`), otherwise of the first signature; with `signatures: N`, a failure
    /// unless it holds for N signatures by distinct keys, which a compact token never has.
    @inline(__always)
    private func run(_ prepared: consuming Prepared, keySets: [RemoteKeySource: KeyResolution], _ request: EvaluationRequest) -> Judged {
        guard let token = prepared.token, !token.otherSignatures.isEmpty || envelope.signatures.countsSigners else {
            return judge(prepared, keySets: keySets, request)
        }
        // A verdict chosen among several signatures' is not kept for another time.
        var judged = judgeEachSignature(prepared, token, keySets: keySets, request)
        judged.stableWithin = nil
        return judged
    }

    private func judgeEachSignature(_ prepared: Prepared, _ token: DecodedToken, keySets: [RemoteKeySource: KeyResolution],
                                    _ request: EvaluationRequest) -> Judged {
        let candidates = [token] + token.otherSignatures
        var judgements: [Judged] = []
        for (index, candidate) in candidates.enumerated() {
            var alternative = prepared
            alternative.token = candidate
            let judged = judge(alternative, keySets: keySets, request, signature: candidates.count > 1 ? (index, candidates.count) : nil)
            switch envelope.signatures {
            case .any where judged.verdict.valid, .all where !judged.verdict.valid: return judged
            default: judgements.append(judged)
            }
        }
        guard case let .atLeast(required) = envelope.signatures else { return judgements[0] }
        let verdicts = judgements.map(\.verdict)
        var signers: [VerifiedKey] = []
        for key in verdicts.filter(\.valid).compactMap(\.proof?.key) where !signers.contains(where: { $0.kid == key.kid && $0.source == key.source }) {
            signers.append(key)
        }
        let best = judgements.first(where: \.verdict.valid) ?? judgements[0]
        guard signers.count < required else { return best }
        let held = signers.map { "\($0.kid.map { "kid '\($0)'" } ?? "a key without kid") from \($0.source)" }
        let finding = Finding(rule: "token.signatures", code: .tooFewSignatures,
                              message: "the policy requires \(required) signatures by distinct keys, and \(signers.count) of the token's \(candidates.count) hold"
                                  + (held.isEmpty ? "" : " (\(held.joined(separator: ", ")))"),
                              at: envelope.signaturesLocation?.description ?? (files.first ?? name) + ":1:1")
        let failing = verdicts.first { !$0.valid }
        return Judged(verdict: Verdict(policy: name, valid: false, provenBy: best.verdict.proof?.key, keyFreshness: best.verdict.keyFreshness,
                                       findings: [finding] + (failing?.findings ?? []), skipped: best.verdict.skipped, outputs: [:], trace: best.verdict.trace),
                      oneTimeValues: [])
    }

    /// The verdict of the chain on `prepared`; `signature` is which signature of a general JWS
    /// it judges, for the trace.
    private func judge(_ prepared: consuming Prepared, keySets: [RemoteKeySource: KeyResolution], _ request: EvaluationRequest,
                       signature: (index: Int, count: Int)? = nil) -> Judged {
        let tracing = request.trace
        let decoded = prepared.token
        // Moved into the context whole: its fields copied one by one each went through their
        // type's value witness (a metadata lookup and an indirect call) and were released twice.
        let context = EvaluationContext(now: request.now, prepared: prepared, keySets: keySets, signatureCache: request.signatureCache, tracing: tracing)
        var evaluator = ChainEvaluator(context: context, failFast: mode == .failFast)
        // A failure may carry no finding (a rule blocked by another's failure), so `passed` is
        // not the same as "no findings".
        let (passed, findings): (Bool, [Finding])
        switch evaluator.run(root) {
        case .pass, .skipped: (passed, findings) = (true, [])
        case let .fail(found, _): (passed, findings) = (false, found)
        }
        // A plain JWE carries no signature: authenticated decryption is what proves its origin.
        // Taken from the evaluator, not copied: the key is shared by every token it verified.
        let provenBy = envelope.format == .jwe ? decoded?.decryptedBy : evaluator.verifiedKey.take()
        let verified = provenBy != nil
        // A token must prove its origin; requests, callbacks and PKCE values carry no signature.
        let valid = passed && (verified || decoded == nil)
        let trace = tracing ? trace(of: evaluator, decoded, provenBy: provenBy, held: passed && verified, signature: signature, request) : nil
        // Operators watch this field for outages: a verdict reached with stale keys says so.
        let keyFreshness = keySets.isEmpty ? nil : provenBy?.freshness ?? keySets.values.map(\.freshness).max()
        let outputs = !valid ? [:] : self.outputs.isEmpty ? evaluator.outputs : evaluator.outputs.merging(outputValues(decoded)) { $1 }
        let plain = valid && findings.isEmpty && evaluator.skipped.isEmpty && outputs.isEmpty && trace == nil && keyFreshness == nil
        // Not `provenBy.flatMap(…)`: its closure retained the shared verdict once more.
        let verdict = (plain && provenBy != nil ? plainValidVerdict(provenBy: provenBy!) : nil)
            ?? Verdict(policy: name, valid: valid, provenBy: provenBy, keyFreshness: keyFreshness, findings: findings,
                       skipped: evaluator.skipped, outputs: outputs, trace: trace)
        // Where the verdict depended on nothing but the token, the inputs and the time, it holds
        // wherever the rules that compared the time would have answered the same.
        let stableWithin = verdictsReusable && !tracing && keySets.isEmpty && request.decoded == nil && evaluator.oneTimeValues.isEmpty
            ? context.timeWindow : nil
        let oneTimeValues = evaluator.oneTimeValues.isEmpty ? [] : evaluator.oneTimeValues.map { Judged.UsedValue(rule: $0.rule.id, at: $0.rule.locationText, value: $0.value) }
        return Judged(verdict: verdict, oneTimeValues: oneTimeValues, stableWithin: stableWithin)
    }

    /// The trace of a chain `evaluator` ran: made only when the request asks for one, so an
    /// untraced evaluation copies none of the optional trace's parts.
    private func trace(of evaluator: ChainEvaluator, _ decoded: DecodedToken?, provenBy: VerifiedKey?, held: Bool,
                       signature: (index: Int, count: Int)?, _ request: EvaluationRequest) -> Trace {
        var trace = Trace(clock: .init(now: request.now, source: request.clockSource))
        if let decryption = envelope.decryption, let key = decoded?.decryptedBy {
            trace.entries.append(.init(rule: "token.decryption", status: .pass, at: decryption.location.description,
                                       detail: "decrypted with \(key.kid.map { "kid '\($0)'" } ?? "a key without kid") from \(key.source)"))
        }
        if let signature {
            trace.entries.append(.init(rule: "token.signatures", status: held ? .pass : .fail, at: files.first.map { "\($0):1:1" } ?? name,
                                       detail: "signature \(signature.index + 1) of \(signature.count) (signatures: \(envelope.signatures))"))
        }
        trace.entries += evaluator.entries
        trace.key = provenBy
        return trace
    }

    package func resolveInputs(_ supplied: [String: JSONValue]) throws(EvaluationError) -> [String: JSONValue] {
        // Most policies declare none and most requests give none: no keys to filter, no table to make.
        if inputs.isEmpty, supplied.isEmpty { return [:] }
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
