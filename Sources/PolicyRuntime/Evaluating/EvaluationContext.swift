@_spi(RuleAuthoring) public import PolicyJOSE
internal import Synchronization

/// Everything a rule may read: the subject, the time, the inputs.
///
/// Rules never read the clock or the environment themselves; that keeps them pure and lets a
/// batch judge each record as of its own time. A class, because every rule of the chain reads
/// it: one reference passed around costs less than copying its dictionaries and token.
///
/// The context notes how rules used the time (`timeWindow`): a rule that compares it with a
/// bound asks `isBefore`, and any other read of `now` ties the verdict to that instant.
@_spi(RuleAuthoring) public final class EvaluationContext: Sendable {
    /// The time the subjects are judged at, for a rule that quotes it or looks something up by
    /// it. Reading it ties the verdict to this instant (`timeWindow`); a rule that only compares
    /// the time with a bound asks `isBefore` instead.
    public var now: UnixTime {
        narrow(from: instant.seconds, until: instant.seconds.nextUp)
        return instant
    }
    private let instant: UnixTime
    /// The time judged at, for a rule to quote in a finding's message: unlike `now`, a verdict
    /// that quotes it is not tied to this instant, and reused at another time it quotes that one
    /// (`QuotedTime`).
    public var quotedNow: QuotedTime { QuotedTime(context: self, instant: instant) }
    /// `timeWindow`'s ends, as the bit patterns of their `Double`s: the context is shared by
    /// reference, and a rule that narrows the window holds nothing but the context.
    private let windowFrom = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let windowUntil = Atomic<UInt64>(Double.infinity.bitPattern)
    /// The inputs, subjects and token the evaluation prepared, held as it made them: moved in
    /// whole rather than copied field by field, and read in place by the accessors below.
    @usableFromInline let prepared: Policy.Prepared
    /// The inputs supplied for this evaluation, with declared defaults filled in.
    @inlinable public var inputs: [String: JSONValue] { prepared.inputs }
    /// The decoded token, for token rules.
    @inlinable public var token: DecodedToken? { prepared.token }
    /// The token as presented, for rules bound to its exact text (a DPoP proof's `ath`).
    package var tokenText: String? { prepared.tokenText?.text }
    /// The non-token subjects of this evaluation, by section.
    @inlinable public var subjects: [String: any PolicySubject] { prepared.subjects }
    /// The remote key sets this evaluation resolved, for the signature rule.
    let keySets: [RemoteKeySource: KeyResolution]
    /// Remembered signature checks, for batches where tokens repeat; nil checks every time. A
    /// nested policy (a `bearer` or `embedded_tokens` rule's) evaluates through the same one.
    package let signatureCache: SignatureCache?
    /// Whether the verdict will carry a trace, and so whether rules should describe what they compared.
    public let tracing: Bool
    /// The tokens inside the subjects and claims, decoded once by the evaluation, for the nested
    /// evaluations that judge them.
    package var embeddedTokens: [String: DecodedToken]? { prepared.embedded }

    /// A context for one evaluation, for tests of rules: the engine makes its own, with the key
    /// sets it resolved and its signature cache.
    package convenience init(now: UnixTime, inputs: [String: JSONValue], token: DecodedToken?, tokenText: String? = nil, subjects: [String: any PolicySubject] = [:],
                             keySets: [RemoteKeySource: KeyResolution] = [:], signatureCache: SignatureCache? = nil, tracing: Bool = false,
                             embeddedTokens: [String: DecodedToken]? = nil) {
        self.init(now: now, prepared: Policy.Prepared(inputs: inputs, token: token, tokenText: tokenText.map(TokenText.init), subjects: subjects, embedded: embeddedTokens),
                  keySets: keySets, signatureCache: signatureCache, tracing: tracing)
    }

    /// A context for one evaluation of what `prepared` holds.
    init(now: UnixTime, prepared: consuming Policy.Prepared, keySets: [RemoteKeySource: KeyResolution], signatureCache: SignatureCache?, tracing: Bool) {
        instant = now
        self.prepared = prepared
        self.signatureCache = signatureCache
        self.keySets = keySets
        self.tracing = tracing
    }

    /// Whether the time judged at is before `bound`, in seconds since the epoch: how a rule
    /// compares the time with a claim (`exp`, `nbf`, `iat`). The verdict then holds at every
    /// time on the same side of `bound`, which `timeWindow` records.
    public func isBefore(_ bound: Double) -> Bool {
        guard instant.seconds < bound else {
            // A NaN bound compares false at every time and narrows nothing.
            narrow(from: bound, until: .infinity)
            return false
        }
        narrow(from: -.infinity, until: bound)
        return true
    }

    /// The times at which the rules run so far would have judged as they did.
    package var timeWindow: TimeWindow {
        TimeWindow(from: Double(bitPattern: windowFrom.load(ordering: .relaxed)), until: Double(bitPattern: windowUntil.load(ordering: .relaxed)))
    }

    private func narrow(from: Double, until: Double) {
        if from > Double(bitPattern: windowFrom.load(ordering: .relaxed)) { windowFrom.store(from.bitPattern, ordering: .relaxed) }
        if until < Double(bitPattern: windowUntil.load(ordering: .relaxed)) { windowUntil.store(until.bitPattern, ordering: .relaxed) }
    }

    /// The subject of type `S`; the engine supplies every subject a policy's sections need
    /// before rules run, so a section's own rules may rely on it.
    public func subject<S: PolicySubject>(_ type: S.Type) -> S? {
        subjects[S.section] as? S
    }

    /// The position in `candidates` of the key that verifies `jws`, or nil when none does,
    /// asking the signature cache first (a position, so that no key is copied out). `digest`
    /// is the SHA-256 of `jws`'s signed bytes when decoding took it; `keySet` identifies, by
    /// content, the set the candidates came from.
    ///
    /// Only which key verified is remembered: where the key came from and how fresh its set is
    /// belong to this evaluation, and the caller describes them.
    func verifyingKey(_ jws: CompactJWS, digest: ContentDigest?, among candidates: [JWK], keySet: KeySetIdentity) -> Int? {
        func check() -> Int? {
            candidates.indices.first { (try? jws.verify(with: candidates[$0])) == true }
        }
        // An HMAC check costs less than hashing the token for a cache lookup.
        guard let signatureCache, !jws.algorithm.isSymmetric else { return check() }
        let cacheKey = SignatureCache.Key(jws, digest: digest, keySet: keySet)
        // The same signed bytes (alg and kid among them) and the same set select the same candidates.
        if let known = signatureCache.outcome(for: cacheKey), known.map(candidates.indices.contains) ?? true {
            return known
        }
        let result = check()
        signatureCache.remember(result, for: cacheKey)
        return result
    }

    /// A trace detail, built only when tracing: describing a comparison (dates, lists, JSON)
    /// costs more than making it, and untraced evaluations never show the text.
    public func detail(_ text: @autoclosure () -> String) -> String? {
        tracing ? text() : nil
    }

    /// A policy value with this evaluation's inputs filled in. The engine skips a rule whose
    /// inputs are absent before calling it, so inside `evaluate` this does not return nil for
    /// values the rule compiled.
    public func resolve(_ value: PolicyValue) -> JSONValue? {
        value.resolve(inputs)
    }
}

/// A presented token decoded once, for every rule to read (a class for the same reason as the
/// context that holds it).
public final class DecodedToken: Sendable {
    /// The signed token: the token itself, or a nested token's inner JWS; nil for `format: jwe`.
    package let jws: CompactJWS?
    /// The header rules check: the JWS header, or for `format: jwe` the JWE protected header.
    public let header: JOSEHeader
    /// The token's claims (of the signed token inside, for `nested`), read in place.
    public let claims: JSONObjectView
    /// The token's size in bytes as presented.
    public let byteCount: Int
    /// The key that decrypted a `jwe` or `nested` token (its outermost JWE).
    public let decryptedBy: VerifiedKey?
    /// The tokens around the one whose claims these are, outermost first: empty unless the
    /// token nests JWTs (`cty: JWT`, or `format: nested`).
    package let outerLayers: [TokenLayer]
    /// The token as each other signature of a JWS in general JSON serialization makes it: the
    /// same payload under another protected header; empty otherwise. The policy's
    /// `signatures` setting says whether one or all of them must hold.
    package let otherSignatures: [DecodedToken]
    /// The SHA-256 of the signed token's bytes, which the signature cache keys its check by:
    /// taken once at decoding, and only when an evaluation has a signature cache, so a token
    /// kept decoded for its repeats is looked up at each without hashing it again. Nil for an
    /// HMAC token, whose check costs less than hashing it.
    let signedBytesDigest: ContentDigest?

    /// The `kid` that chose the key: the signed token's (protected or, in a JSON serialization,
    /// unprotected), or a plain JWE's.
    package var keyID: String? { jws?.keyID ?? header.kid }

    /// The signed token's algorithm, nil for a plain JWE. Read by the token's own methods: a
    /// rule binding `jws` itself copied it, retaining and releasing each of its parts.
    package var signatureAlgorithm: JWSAlgorithm? { jws?.algorithm }

    /// Whether other tokens wrap the one whose claims these are (`outerLayers`).
    package var isWrapped: Bool { !outerLayers.isEmpty }

    /// The signatures verification checks besides `jws`'s: the layers around it, and those of
    /// the token's other signatures; empty (without allocating) for a token that has none.
    package var otherSignedTokens: [CompactJWS] {
        guard !outerLayers.isEmpty || !otherSignatures.isEmpty else { return [] }
        return outerLayers.compactMap(\.signature) + otherSignatures.flatMap { other in other.otherSignedTokens + (other.jws.map { [$0] } ?? []) }
    }

    /// A decoded token whose claims are given as an object: for tests of rules.
    package convenience init(jws: CompactJWS?, header: JOSEHeader, claims: JSONObject, byteCount: Int, decryptedBy: VerifiedKey? = nil) {
        self.init(jws: jws, header: header, claims: JSONObjectView(claims), byteCount: byteCount, decryptedBy: decryptedBy)
    }

    /// A decoded token.
    package convenience init(jws: CompactJWS?, header: JOSEHeader, claims: JSONObjectView, byteCount: Int, decryptedBy: VerifiedKey? = nil) {
        self.init(jws: jws, header: header, claims: claims, byteCount: byteCount, decryptedBy: decryptedBy, digesting: false)
    }

    /// A decoded token whose signed bytes are hashed for the signature cache when `digesting`.
    init(jws: CompactJWS?, header: JOSEHeader, claims: JSONObjectView, byteCount: Int, decryptedBy: VerifiedKey?, outerLayers: [TokenLayer] = [],
         otherSignatures: [DecodedToken] = [], digesting: Bool) {
        self.otherSignatures = otherSignatures
        self.jws = jws
        self.header = header
        self.claims = claims
        self.byteCount = byteCount
        self.decryptedBy = decryptedBy
        self.outerLayers = outerLayers
        signedBytesDigest = digesting ? jws.flatMap { $0.algorithm.isSymmetric ? nil : ContentDigest(of: $0.signedBytes) } : nil
    }
}
