internal import Synchronization
import PolicyJOSE

/// The verdict lines of a batch's repeated tokens, each with the times it holds at: a token
/// seen again at a time inside its verdict's window (`Evaluation.stableWithin`) gets that
/// verdict without being decoded or judged again — one lookup instead of a chain.
///
/// A memo serves one `BatchEvaluator`, so one policy and one set of inputs: a token's text is
/// all its key holds, and records with inputs of their own are never looked up. A verdict that
/// compared the time with the token's `exp` holds until then; one that quotes the time (an
/// expired token's, `QuotedTime`) holds from `exp` on, each reuse quoting its own record's time
/// (`BatchVerdict.moved`).
///
/// It stands in front of the signature cache and in place of the decoded-token cache
/// (`BatchEvaluator.start`): a batch that keeps verdicts decodes its records itself and asks the
/// signature cache only about tokens the memo saw before.
///
/// Bounded like those (`ClockCache`, TinyLFU admission when full): a token's verdict is kept
/// from its first sighting while there is room, so its second is already a lookup, and once the
/// memo is full only a token seen again displaces one (a log of unique tokens fills it once and
/// then costs nothing more). A full memo costs a judgement per token it does not hold, never a
/// wrong answer. A verdict is kept as judged and its line's members rendered at its first reuse:
/// a token never seen again costs no rendering.
final class VerdictMemo: Sendable {
    /// Kept in the memo's slot, not as an object of its own: an entry made for every token the
    /// memo has room for would be an allocation a record, while a hit copies a few references.
    struct Entry: Sendable {
        /// The verdict line of the record that brought it, its members rendered once it is
        /// reused; `BatchVerdict.moved` gives each record its own line number and replay key.
        let verdict: BatchVerdict
        /// The record times the verdict holds at.
        let window: TimeWindow
        /// Whether the verdict quotes the time it was judged at (`Verdict.quotesTime`), for
        /// `BatchVerdict.moved` to quote each reuse's own.
        let quotesTime: Bool
    }

    private struct State {
        var entries: ClockCache<DecodedTokenCache.Key, Entry>
        var reused = 0
        var firstSightings = 0
    }

    private let state: Mutex<State>

    /// What an entry takes besides its slot: the token's text (its key), about 256 bytes of
    /// rendered line, and about 384 bytes of verdict, names and object headers.
    static func cost(ofToken tokenBytes: Int) -> Int {
        tokenBytes + 256 + 384
    }

    /// A memo of at most `budget` bytes.
    init(budget: Int) {
        state = Mutex(State(entries: ClockCache(budget: budget, typicalCost: Self.cost(ofToken: 1024), admitAfter: 1)))
    }

    /// What the memo knows of a token at a record's time.
    enum Lookup {
        /// Its verdict, which holds at that time, moved to the record (`BatchVerdict.moved`).
        case known(BatchVerdict)
        /// No verdict that holds then; `worthKeeping` says whether the one about to be judged
        /// would be kept, so that a one-off's is not prepared, and `seenBefore` whether the
        /// memo's sketch knew the token before this sighting (it may forget one it knew long
        /// ago, never invent one it did not); `frequency` is the sketch's count with this
        /// sighting, for `remember` (nil for a kept token whose verdict did not hold then, before
        /// the memo was first full: such a hit is not counted).
        case unknown(worthKeeping: Bool, seenBefore: Bool, frequency: Int?)
    }

    /// The digests of the tokens of the next two lookups, where the caller knows them (`lookUp`).
    typealias Readying = (next: Int?, after: Int?)

    /// The record a verdict found in the memo is moved to: its place and the time it is judged at.
    struct Record {
        let line: Int
        let input: String?
        let time: UnixTime
        let atClock: Bool
    }

    /// A token's bytes to compare with the keys, read only during the lookup that holds them.
    private struct Probe: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        let digest: Int
        let limits: TokenLimits
    }

    /// What a lookup found: the verdict moved to its record, an entry whose window does not
    /// hold at the record's time, or none.
    private enum Found {
        case verdict(BatchVerdict)
        case outsideWindow
        case none
    }

    /// The verdict kept for the token whose UTF-8 bytes are `token` (their digest `digest`)
    /// under `limits`, moved to `record` if it holds at the record's time, counting a sighting
    /// of the token. Moved in place, under the lock: a copy of the entry taken out retained and
    /// released what it holds.
    ///
    /// `readying` holds the digests of the tokens the next two lookups will ask for, where the
    /// caller knows them: under the same lock the memo asks the processor for the index bucket
    /// of the second and the entry of the first (`ClockCache.ready(next:after:)`).
    func lookUp(_ token: UnsafeRawBufferPointer, digest: Int, limits: TokenLimits, for record: Record, readying: Readying = (nil, nil)) -> Lookup {
        let sketchHash = UInt64(bitPattern: Int64(digest))
        let probe = Probe(bytes: token, digest: digest, limits: limits)
        return state.withLock { state in
            state.entries.ready(next: readying.next, after: readying.after)
            let (found, sightings) = state.entries.sighting(tableHash: digest, sketchHash: sketchHash,
                                                             where: { $0.holds(probe.bytes, digest: probe.digest, limits: probe.limits) },
                                                             found: { entry -> Found in
                guard entry.window.contains(record.time) else { return .outsideWindow }
                // The first reuse renders the line's members once, for every later one; a
                // verdict that quotes the time is requoted, and rendered, by each reuse at another second.
                if !entry.verdict.isRendered, !entry.quotesTime {
                    entry = Entry(verdict: entry.verdict.rendered(), window: entry.window, quotesTime: false)
                }
                return .verdict(entry.verdict.moved(line: record.line, input: record.input, at: record.time, atClock: record.atClock,
                                                    quotesTime: entry.quotesTime))
            }, missing: Found.none)
            switch found {
            case let .verdict(verdict):
                state.reused += 1
                return .known(verdict)
            case .outsideWindow:
                // Its verdict replaces the one kept: no count is needed to keep it (nil before the
                // memo was first full, when hits are not counted).
                return .unknown(worthKeeping: true, seenBefore: true, frequency: sightings?.after)
            case .none:
                // A miss is always counted (`ClockCache.sighting`): only a hit has no sightings.
                let sightings = sightings!
                let seenBefore = sightings.before > 0
                if !seenBefore { state.firstSightings += 1 }
                return .unknown(worthKeeping: state.entries.admits(frequency: sightings.after), seenBefore: seenBefore, frequency: sightings.after)
            }
        }
    }

    /// Keeps `verdict`, which holds within `window`, for `token`: in place of an entry whose
    /// window did not hold for this record's time.
    /// `frequency` is the one its lookup read.
    func remember(_ verdict: BatchVerdict, within window: TimeWindow, for token: DecodedTokenCache.Key, frequency: Int? = nil) {
        let quotesTime = verdict.verdict.quotesTime
        let entry = Entry(verdict: verdict, window: quotesTime ? window.intersection(UnixTime.twentyByteISO8601Times) : window, quotesTime: quotesTime)
        let cost = Self.cost(ofToken: token.token.byteCount)
        state.withLock { $0.entries.offer(entry, for: token, ownCost: cost, frequency: frequency) }
    }

    /// Records whose verdict was reused.
    var reused: Int { state.withLock { $0.reused } }

    /// Records whose token the memo had not seen (as far as its sketch knows): their signatures
    /// were verified without the signature cache.
    var firstSightings: Int { state.withLock { $0.firstSightings } }

    /// The memory the memo takes now, as it costs its entries.
    var bytes: Int { state.withLock { $0.entries.bytes } }
}
