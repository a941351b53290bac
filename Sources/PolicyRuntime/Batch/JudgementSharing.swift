@_spi(RuleAuthoring) import PolicyJOSE

/// What the verdict lines one worker makes in a row share: the issuer's text and the last
/// judgement, so that a run of tokens from one issuer with one outcome (most of a log) makes
/// no string of `iss` and no judgement per record, and renders that judgement's line once;
/// with several workers, also what decoding remembers (`DecodingMemory`); the policy, the
/// request the worker's records are judged with (`request`) and the layout of their lines
/// (`lineLayout`). A worker keeps it from chunk to chunk.
///
/// A judgement is shared by identity of its verdict (a policy's plain valid verdict is made once
/// per local key, `Policy.plainValidVerdict`) and equality of `iss` and `kid`; an invalid
/// verdict is also shared with one of the last few invalid judgements that writes the same
/// members (`Verdict.writesSameMembers`): tokens that fail alike — one client's wrong audience,
/// forged signatures, one issuer's expired tokens at one time — each make a verdict of their
/// own, and writing its strings costs more than comparing them. A verdict carrying claims is
/// never shared. Local to a worker: no lock.
package struct JudgementSharing: Sendable {
    private var issuer: String?
    private var last: BatchVerdict.Judgement?
    /// Whether `last` has been handed to a second record, after which it is rendered.
    private var lastShared = false
    /// The last few invalid judgements without claims, oldest replaced first (`nextInvalid`),
    /// each rendered once a second record shares it.
    private var recentInvalid: [BatchVerdict.Judgement] = []
    private var nextInvalid = 0
    /// How many invalid judgements are kept for sharing: a log's failures come in a few kinds,
    /// and each is compared with a record's that matches none.
    private static let invalidKept = 4
    /// The policy this worker judges with: with several workers, once `compileOwnPolicy` ran, a
    /// copy of the evaluator's of its own (`Policy.recompiled`), whose reference counts no other
    /// core writes.
    private(set) var policy: Policy
    /// Whether the worker is to judge with a policy of its own, not yet compiled.
    private var ownPolicyWanted: Bool
    /// The headers and claim layouts this worker's records decode with, when not the policy's.
    let decodingMemory: DecodingMemory?
    /// The request of this worker's records without inputs of their own, once `BatchEvaluator`
    /// made it: each record sets its own fields (token, time, caches) in place, so what every
    /// record shares (the inputs, the replay store, the decoding memory) is not copied into a
    /// new request and released from it a record.
    var request = EvaluationRequest(now: UnixTime(seconds: 0), signatureCache: nil, replayStore: nil)
    /// Whether `request` is the evaluator's yet, rather than the placeholder it starts as. A flag
    /// beside a placeholder, not an optional: the request unwrapped from an optional was copied
    /// through the optional's value witnesses (~570 instructions a record).
    var requestMade = false
    /// The members of the worker's last record line, which the next is matched against.
    var lineLayout = JSONLineLayout()

    /// Nothing shared yet, for a worker judging with `policy` (with `ownPolicy`, a copy of it
    /// its `compileOwnPolicy` makes); `decodingMemory` for one that decodes with a memory of its own.
    package init(policy: Policy, ownPolicy: Bool = false, decodingMemory: DecodingMemory? = nil) {
        self.policy = policy
        ownPolicyWanted = ownPolicy
        self.decodingMemory = decodingMemory
    }

    /// Compiles the worker's own policy, the first time it is called for a worker that wants one.
    mutating func compileOwnPolicy() {
        guard ownPolicyWanted else { return }
        ownPolicyWanted = false
        policy = policy.recompiled()
    }

    /// The token's `iss` as text, nil when it has none or it is not a string: the last issuer's
    /// string when the claim equals it, compared in place.
    mutating func issuer(of claims: JSONObjectView) -> String? {
        if let issuer, claims.string(RegisteredClaim.iss, equals: issuer) { return issuer }
        guard let found = claims[RegisteredClaim.iss]?.stringValue else { return nil }
        issuer = found
        return found
    }

    /// The judgement for a line with these members: the last one when it says the same, for an
    /// invalid verdict a recent one that writes the same, else a new one that becomes the last.
    mutating func judgement(verdict: Verdict, issuer: String?, kid: String?, claims: JSONObject?) -> BatchVerdict.Judgement {
        if claims == nil, let last, last.claims == nil, last.verdict.isIdentical(to: verdict), last.issuer == issuer, last.kid == kid {
            if !lastShared {
                // Rendered at its second line: a judgement no other record shares costs no rendering.
                lastShared = true
                self.last = last.rendered()
            }
            return self.last!
        }
        let sharedByMembers = claims == nil && !verdict.valid
        if sharedByMembers,
           let index = recentInvalid.firstIndex(where: { $0.issuer == issuer && $0.kid == kid && $0.verdict.writesSameMembers(as: verdict) }) {
            let shared = recentInvalid[index].rendered()
            recentInvalid[index] = shared
            return shared
        }
        let made = BatchVerdict.Judgement(verdict: verdict, issuer: issuer, kid: kid, claims: claims)
        last = made
        lastShared = false
        if sharedByMembers {
            if recentInvalid.count < Self.invalidKept {
                recentInvalid.append(made)
            } else {
                recentInvalid[nextInvalid] = made
                nextInvalid = (nextInvalid + 1) % Self.invalidKept
            }
        }
        return made
    }
}
