import Foundation
@_spi(RuleAuthoring) package import PolicyJOSE

/// Evaluates token-log records against one policy, each as of its own time, in parallel, with
/// verdicts coming out in input order (POLICY-FORMAT.md, `policy-run batch`).
///
/// The pipeline is bounded: at most `jobs` chunks of records are in work at once, so memory
/// stays flat however long the log. A repeated token is verified once through the signature
/// cache, and its verdict is reused for each record whose time the verdict holds at
/// (`VerdictMemo`); other repeats have their times and claims judged again.
package struct BatchEvaluator: Sendable {
    /// The policy every record is judged by.
    package let policy: Policy
    /// Inputs for every record; a record's mapped fields override them.
    package var inputs: [String: JSONValue]
    /// The time of records without one; nil means the wall clock when the record is evaluated.
    package var defaultTime: UnixTime?
    /// Chunks evaluated at once.
    package var jobs: Int
    /// Whether verdicts carry the token's claims.
    package var includeClaims: Bool
    /// Nil disables remembering signature checks.
    package var signatureCache: SignatureCache?
    /// Whether each verified token's verdict carries a `replayKey`, for `--detect-replay`.
    package var detectReplay = false
    /// Where a policy's one-time values (`once`) are recorded: this run's own memory, so a log
    /// judged twice does not find its values used by the first run.
    let replayStore = MemoryReplayStore()
    /// Verdicts of repeated tokens, with the record times each holds at; nil when the policy's
    /// verdicts depend on more than the token, the inputs and the time
    /// (`Policy.verdictsReusable`), or when none are to be remembered.
    let recentVerdicts: VerdictMemo?

    /// Records per unit of parallel work: large enough to amortise handing a chunk to a worker
    /// (256 rather than 64: 17% less time for a log of repeated HS256 tokens on one job), small
    /// enough to keep the read-ahead small. A live input cuts a chunk short when it pauses.
    package static let chunkSize = 256

    /// An evaluator of token logs.
    ///
    /// - Parameters:
    ///   - policy: The compiled policy.
    ///   - inputs: Input values for every record; a record's own mapped fields win.
    ///   - defaultTime: The time of records without their own; nil means the wall clock.
    ///   - jobs: How many chunks are judged at once (one per core).
    ///   - includeClaims: Whether verdict lines carry the token's claims.
    ///   - signatureCache: Remembered signature checks for logs where tokens repeat.
    ///   - verdictMemory: The bytes kept for verdicts of repeated tokens; nil keeps none.
    package init(policy: Policy, inputs: [String: JSONValue] = [:], defaultTime: UnixTime? = nil,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, includeClaims: Bool = false,
                signatureCache: SignatureCache? = SignatureCache(), verdictMemory: Int? = SignatureCache.defaultMemoryLimit / 4) {
        self.policy = policy
        self.inputs = inputs
        self.defaultTime = defaultTime
        self.jobs = max(1, jobs)
        self.includeClaims = includeClaims
        self.signatureCache = signatureCache
        recentVerdicts = policy.verdictsReusable ? verdictMemory.map(VerdictMemo.init) : nil
    }

    /// The bytes of a cache budget that keep `policy`'s verdicts (`VerdictMemo`); the rest keeps
    /// signature checks and decoded tokens.
    ///
    /// A quarter by default: a check of a public-key signature saves more than the rest of its
    /// record, so the checks get most. A policy whose verdicts are not reusable keeps none and
    /// leaves the whole budget to the checks. A policy that accepts only HMAC algorithms never
    /// asks for a check (an HMAC costs less than the lookup) nor, while verdicts are kept, for a
    /// decoded token, so its verdicts get half: a full memo takes about two thirds of what it
    /// counts (Benchmarks/RESULTS.md), and half of the default 64 MiB keeps the process within
    /// 64 MiB of resident memory where all of it would not.
    package static func verdictShare(of budget: Int, for policy: Policy) -> Int {
        guard policy.verdictsReusable else { return 0 }
        return policy.algorithms.allSatisfy(\.isSymmetric) ? budget / 2 : budget / 4
    }

    /// Records whose verdict was an earlier record's with the same token, reused; nil when the
    /// evaluator keeps no verdicts.
    package var reusedVerdicts: Int? { recentVerdicts?.reused }
    /// Records whose token was a first sighting, verified without the signature cache; nil when
    /// the run kept no verdicts (every record then asked the cache).
    package var firstSightings: Int? { recentVerdicts?.firstSightings }

    /// The memory the kept verdicts take now, as their memo costs them; nil when none are kept.
    package var verdictMemoryUsed: Int? { recentVerdicts?.bytes }

    /// The verdict on one record; never throws: a record that cannot be judged gets a verdict
    /// saying why.
    package func evaluate(_ record: BatchRecord) async -> BatchVerdict {
        var sharing = JudgementSharing(policy: policy)
        return switch start(record, sharing: &sharing) {
        case let .judged(verdict): verdict
        case let .waiting(pending): await finish(RecordPlace(record), pending, by: sharing.policy)
        }
    }

    /// The verdict on one record if it can be had without waiting (local keys, or remote keys
    /// cached), as a worker of `run` judges records made elsewhere; nil when the record waits for
    /// a key fetch, which `evaluate` then finishes.
    ///
    /// - Parameter sharing: What the records judged before on this thread share with this one,
    ///   as a worker of `run` keeps it.
    package func evaluateNow(_ record: BatchRecord, sharing: inout JudgementSharing) -> BatchVerdict? {
        switch start(record, sharing: &sharing) {
        case let .judged(verdict): verdict
        case .waiting: nil
        }
    }

    /// How far a record got without suspending.
    enum RecordStart {
        case judged(BatchVerdict)
        /// Its token is decoded and waits for remote keys, or its verdict for a replay store.
        case waiting(PendingEvaluation)
    }

    /// Where a record was: what its verdict line names besides what its token says.
    struct RecordPlace {
        let line: Int
        let input: String?
    }

    /// Judges a record without suspending when its keys are at hand (local keys, a warm cache):
    /// skipping the suspension point per record matters at hundreds of thousands of records per
    /// second. Otherwise the record waits for `finish`, its token decoded once.
    func start(_ record: BatchRecord, sharing: inout JudgementSharing) -> RecordStart {
        switch record.content {
        case let .unparsed(line, shared):
            return start(line, of: record.input, format: shared, sharing: &sharing)
        case let .malformed(code, message):
            return .judged(refused(RecordPlace(record), code, message))
        case let .token(token, time, recordInputs):
            return start(RecordPlace(record), token: token, time: time, inputs: recordInputs, sharing: &sharing)
        }
    }

    /// Judges the lines of `block` (of `input`, read with `format`; none of them blank, as
    /// `BatchRecords` gives them) from `next` on, appending their verdicts to `verdicts`, until
    /// one waits for its keys: that line's number and its pending evaluation, `next` then past
    /// it; nil once every line is judged. The per-line path of `run` over a log, for callers that
    /// count its cost on one thread too.
    ///
    /// Each line is read in place, in its block: a line taken out as a value of its own retained
    /// and released the block. Once every line is judged, the worker's request lets go of the
    /// last token, which would keep the block in memory until the worker's next chunk.
    package func judgeNow(_ block: LineBlock, from next: inout Int, of input: String?, format: SharedRecordFormat, into verdicts: inout [BatchVerdict],
                          sharing: inout JudgementSharing) -> (line: Int, PendingEvaluation)? {
        let bytes = block.bytes[...]
        return bytes.withUnsafeBufferPointer { text in
            /// The scan of the block's line at `index`.
            func scan(at index: Int) -> LineScan {
                let span = block.spans[index]
                return self.scan(UnsafeBufferPointer(rebasing: text[span.range]), tooLong: span.tooLong, format: format, sharing: &sharing)
            }
            // The two lines after this one are scanned, and their tokens hashed, before it is
            // looked up, and the memo readies what their lookups will read (`VerdictMemo.lookUp`):
            // in a memo of many tokens a lookup waited for the index, then the entry, to come
            // from memory. What was scanned ahead is used when its line's turn comes (and scanned
            // again only after a record that waits for keys ends the call).
            var ahead: LineScan?, further: LineScan?
            while next < block.spans.count {
                let span = block.spans[next]
                let current = ahead ?? scan(at: next)
                next += 1
                (ahead, further) = (further, nil)
                if current.digest != nil, next < block.spans.count {
                    ahead = ahead ?? scan(at: next)
                    if ahead?.digest != nil, next + 1 < block.spans.count { further = scan(at: next + 1) }
                }
                switch start(line: span.number, tooLong: span.tooLong, UnsafeBufferPointer(rebasing: text[span.range]), current,
                             readying: (ahead?.digest, further?.digest), at: span.range.lowerBound, of: bytes, input: input, format: format,
                             sharing: &sharing) {
                case let .judged(verdict): verdicts.append(verdict)
                case let .waiting(pending): return (span.number, pending)
                }
            }
            sharing.request.presentedToken = nil
            return nil
        }
    }

    /// What the scan of a line found (`BatchRecordFormat.scannedToken`), with its token's digest
    /// when the memo is to be asked; no scan for a line to be parsed whole.
    private struct LineScan {
        let scanned: BatchRecordFormat.ScannedLine?
        let digest: Int?
    }

    /// The scan of a line's bytes `text` (cut when `tooLong`), read with `format`.
    @inline(__always)
    private func scan(_ text: UnsafeBufferPointer<UInt8>, tooLong: Bool, format: SharedRecordFormat, sharing: inout JudgementSharing) -> LineScan {
        guard let scanned = format.scannedToken(text, tooLong: tooLong, lineLayout: &sharing.lineLayout) else { return LineScan(scanned: nil, digest: nil) }
        guard recentVerdicts != nil else { return LineScan(scanned: scanned, digest: nil) }
        let token = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[scanned.token]))
        return LineScan(scanned: scanned, digest: DecodedTokenCache.Key.digest(of: token))
    }

    /// `start` for a line of `input` (not blank), read with `format`: a record's line, not parsed yet.
    func start(_ line: LineReader.Line, of input: String?, format: SharedRecordFormat, sharing: inout JudgementSharing) -> RecordStart {
        line.bytes.withUnsafeBufferPointer { text in
            start(line: line.number, tooLong: line.tooLong, text, scan(text, tooLong: line.tooLong, format: format, sharing: &sharing), readying: (nil, nil),
                  at: line.bytes.startIndex, of: line.bytes, input: input, format: format, sharing: &sharing)
        }
    }

    /// `start` for the line `number` of `input` (not blank, cut when `tooLong`), read with
    /// `format` and scanned as `lineScan`: its bytes `text`, read in place, are those of `bytes` from
    /// `offset` on — its block of lines (`LineBlock`) or its own. No line or record is made to
    /// hold it. `readying`: the digests of the tokens of the next two lookups, when known.
    private func start(line number: Int, tooLong: Bool, _ text: UnsafeBufferPointer<UInt8>, _ lineScan: LineScan, readying: VerdictMemo.Readying,
                       at offset: Int, of bytes: ArraySlice<UInt8>, input: String?, format: SharedRecordFormat,
                       sharing: inout JudgementSharing) -> RecordStart {
        // The common line judged at once: a record made to hold its token, and taken apart
        // again, cost more than scanning it.
        if let scanned = lineScan.scanned {
            return start(RecordPlace(line: number, input: input), scanned, digest: lineScan.digest, readying: readying, text, at: offset, of: bytes,
                         sharing: &sharing)
        }
        // Any other line is parsed whole, not scanned again.
        let line = LineReader.Line(number: number, bytes: bytes[offset..<offset + text.count], tooLong: tooLong)
        return start(format.parsed(line, input: input), sharing: &sharing)
    }

    /// `start` for the record at `place`, whose line `text` (at `offset` of `bytes`) scanned as
    /// `scanned`, its token's digest `digest` when the memo is asked. The memo is asked by the
    /// line's bytes: a repeat whose verdict is kept makes no token value, which retained and
    /// released the line's bytes. A function of its own, into which the judging is inlined as it
    /// is into `start`'s: the token passed on to a function that judges it was copied through
    /// generic value witnesses at each use.
    @inline(never)
    private func start(_ place: RecordPlace, _ scanned: BatchRecordFormat.ScannedLine, digest: Int?, readying: VerdictMemo.Readying,
                       _ text: UnsafeBufferPointer<UInt8>, at offset: Int, of bytes: ArraySlice<UInt8>, sharing: inout JudgementSharing) -> RecordStart {
        let time = RecordTime(scanned.time, default: defaultTime)
        var sighting = MemoSighting()
        if let digest,
           let verdict = lookUp(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[scanned.token])), digest: digest, readying: readying,
                                at: place, time, limits: sharing.policy.envelope.limits, sighting: &sighting) {
            return .judged(verdict)
        }
        let token = TokenText(line: bytes[offset + scanned.token.lowerBound..<offset + scanned.token.upperBound])
        return judge(place, token: token, at: time, inputs: [:], usesMemo: recentVerdicts != nil, sighting, sharing: &sharing)
    }

    /// `start` for the record at `place`, which holds `token`, its time (nil: the run's default)
    /// and the inputs `recordInputs`.
    private func start(_ place: RecordPlace, token: TokenText, time: UnixTime?, inputs recordInputs: [String: JSONValue],
                       sharing: inout JudgementSharing) -> RecordStart {
        let time = RecordTime(time, default: defaultTime)
        // The memo holds verdicts under the evaluator's inputs; a record with its own is judged.
        let usesMemo = recordInputs.isEmpty && recentVerdicts != nil
        var sighting = MemoSighting()
        if usesMemo, let verdict = token.withUTF8({ text in
            lookUp(UnsafeRawBufferPointer(text), digest: DecodedTokenCache.Key.digest(of: UnsafeRawBufferPointer(text)), at: place, time,
                   limits: sharing.policy.envelope.limits, sighting: &sighting)
        }) {
            return .judged(verdict)
        }
        return judge(place, token: token, at: time, inputs: recordInputs, usesMemo: usesMemo, sighting, sharing: &sharing)
    }

    /// The time a record is judged at: its own, the run's default, or the wall clock's now.
    private struct RecordTime {
        let now: UnixTime
        /// Whether `now` is the wall clock's (the record has no time, nor the run).
        let atClock: Bool

        init(_ own: UnixTime?, default defaultTime: UnixTime?) {
            now = own ?? defaultTime ?? .now
            atClock = own == nil && defaultTime == nil
        }
    }

    /// What the memo said of a token it had no verdict for, for the verdict about to be judged.
    private struct MemoSighting {
        /// The digest of the token's bytes, once the memo took it.
        var digest: Int?
        /// Whether the verdict is to be kept (`VerdictMemo.Lookup.unknown`).
        var keep = false
        /// Whether the memo's sketch knew the token before: a first sighting is verified without
        /// the signature cache.
        var seenBefore = true
        /// The sketch's count of the token with this sighting, for `VerdictMemo.remember`.
        var frequency: Int?
    }

    /// The memo's verdict for the token whose bytes are `token`, moved to the record at `place`
    /// judged at `time`; nil with `sighting` saying what the memo knew of it. Inlined: the memo
    /// is asked where it is stored, not bound to a local: it is shared by every worker, and a
    /// local retained and released it (one cache line, two cores) a record.
    @inline(__always)
    private func lookUp(_ token: UnsafeRawBufferPointer, digest: Int, readying: VerdictMemo.Readying = (nil, nil), at place: RecordPlace, _ time: RecordTime,
                        limits: TokenLimits, sighting: inout MemoSighting) -> BatchVerdict? {
        sighting.digest = digest
        let record = VerdictMemo.Record(line: place.line, input: place.input, time: time.now, atClock: time.atClock)
        switch recentVerdicts?.lookUp(token, digest: digest, limits: limits, for: record, readying: readying) {
        case let .known(verdict)?:
            return verdict
        case let .unknown(worthKeeping, seenBefore, frequency)?:
            (sighting.keep, sighting.seenBefore, sighting.frequency) = (worthKeeping, seenBefore, frequency)
            return nil
        case nil:
            return nil
        }
    }

    /// Judges the record at `place`, which holds `token`, at `time` with the inputs
    /// `recordInputs`, keeping its verdict in the memo as `sighting` says.
    @inline(__always)
    private func judge(_ place: RecordPlace, token: TokenText, at time: RecordTime, inputs recordInputs: [String: JSONValue], usesMemo: Bool,
                       _ sighting: MemoSighting, sharing: inout JudgementSharing) -> RecordStart {
        let (now, atClock) = (time.now, time.atClock)
        let limits = sharing.policy.envelope.limits
        // A token the memo never saw is verified without the signature cache: no check of it
        // can be there, and a log of unique tokens would pay a digest, a lookup and an entry
        // per record for nothing. Its check is kept from its next sighting on, when the memo
        // did not answer that sighting itself.
        /// The evaluation of this record with `request`, given the record's own fields.
        func started(_ request: inout EvaluationRequest, by policy: borrowing Policy) throws(EvaluationError) -> EvaluationStep {
            request.setRecord(token, digest: sighting.digest, at: now, atClock: atClock, signatureCache: sighting.seenBefore ? signatureCache : nil,
                              usesDecodedTokenCache: !usesMemo)
            return try policy.start(request)
        }
        do throws(EvaluationError) {
            let step: EvaluationStep
            if recordInputs.isEmpty {
                if !sharing.requestMade {
                    sharing.request = request(inputs: inputs, decodingMemory: sharing.decodingMemory)
                    sharing.requestMade = true
                }
                step = try started(&sharing.request, by: sharing.policy)
            } else {
                var own = request(inputs: inputs.merging(recordInputs) { $1 }, decodingMemory: sharing.decodingMemory)
                step = try started(&own, by: sharing.policy)
            }
            switch consume step {
            case let .finished(evaluation):
                let verdict = judged(place, evaluation.verdict, evaluation.token, at: now, atClock: atClock, sharing: &sharing)
                if sighting.keep, usesMemo, let digest = sighting.digest, let window = evaluation.stableWithin {
                    recentVerdicts!.remember(verdict, within: window, for: DecodedTokenCache.Key(token: token, limits: limits, digest: digest),
                                             frequency: sighting.frequency)
                }
                return .judged(verdict)
            case let .waitingForKeys(pending), let .waitingForReplayStore(pending): return .waiting(pending)
            }
        } catch {
            return .judged(refused(place, .recordFieldMissing, error.message))
        }
    }

    /// A request for records with `inputs`, their own fields set by `setRecord`.
    private func request(inputs: [String: JSONValue], decodingMemory: DecodingMemory?) -> EvaluationRequest {
        // The time and clock are each record's (`setRecord`): no clock is read here.
        var request = EvaluationRequest(inputs: inputs, now: UnixTime(seconds: 0), signatureCache: nil, replayStore: replayStore)
        request.decodingMemory = decodingMemory
        return request
    }

    /// The verdict on a record that waited for its keys, by the policy that started it.
    private func finish(_ place: RecordPlace, _ pending: PendingEvaluation, by policy: Policy) async -> BatchVerdict {
        let evaluation = await policy.finish(pending)
        var sharing = JudgementSharing(policy: policy)
        return judged(place, evaluation.verdict, evaluation.token, at: pending.request.now, atClock: pending.request.clockSource == Self.wallClock,
                      sharing: &sharing)
    }

    /// The clock source of a record judged at the wall clock.
    static let wallClock = "wall clock"

    private func judged(_ place: RecordPlace, _ verdict: Verdict, _ decoded: DecodedToken?, at time: UnixTime, atClock: Bool,
                        sharing: inout JudgementSharing) -> BatchVerdict {
        let replayKey = detectReplay && verdict.verified ? decoded.map { BatchReplayKey($0, time: time.seconds) } : nil
        let issuer = decoded.flatMap { sharing.issuer(of: $0.claims) }
        let judgement = sharing.judgement(verdict: verdict, issuer: issuer, kid: decoded?.keyID, claims: includeClaims ? decoded?.claims.object : nil)
        return BatchVerdict(line: place.line, input: place.input, time: time, atClock: atClock, replayKey: replayKey, judgement: judgement)
    }

    private func refused(_ place: RecordPlace, _ code: FindingCode, _ message: String) -> BatchVerdict {
        let finding = Finding(rule: "batch.record", code: code, message: message, at: "\(place.input ?? "input"):\(place.line)")
        return BatchVerdict(line: place.line, input: place.input,
                            verdict: Verdict(policy: policy.name, valid: false, verified: false, findings: [finding], skipped: [], outputs: [:], trace: nil),
                            issuer: nil, kid: nil, claims: nil)
    }

    /// Verdicts for `records`, in their order, evaluated `jobs` chunks at a time.
    package func verdicts<Records: AsyncSequence & Sendable>(for records: Records) -> AsyncThrowingStream<BatchVerdict, any Error>
    where Records.Element == BatchRecord {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await run(records) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The pipeline: read a chunk, hand it to a worker, emit finished chunks in order. Returns
    /// the number of records, after checking that each got exactly one verdict.
    @discardableResult
    package func run<Records: AsyncSequence>(_ records: Records, emit: (BatchVerdict) async throws -> Void) async throws -> Int
    where Records.Element == BatchRecord {
        try await run(records, transform: { _ in () }) { verdicts, _ in
            for verdict in verdicts { try await emit(verdict) }
        }
    }

    /// The pipeline with `transform` applied to each chunk of verdicts by the worker that judged
    /// it: the place for per-record work such as formatting output lines or counting, which
    /// then runs in parallel instead of on the single task that emits in order.
    ///
    /// One job judges each chunk on the task that reads it: a worker task would only hand every
    /// chunk to another thread and back (two context switches a chunk) with nothing to overlap.
    @discardableResult
    package func run<Records: AsyncSequence, Output: Sendable>(_ records: Records, transform: @escaping @Sendable ([BatchVerdict]) -> Output,
                                                              emit: ([BatchVerdict], Output) async throws -> Void) async throws -> Int
    where Records.Element == BatchRecord {
        var iterator = records.makeAsyncIterator()
        var recordsIn = 0, verdictsOut = 0
        // A token log's own records are read without an async call each, and its reader says
        // whether reading on would wait (cast once, here).
        let logRecords = iterator as? BatchRecords.AsyncIterator
        let reader = logRecords?.reader
        /// Whether reading on would wait for a live input: then what is read is judged first.
        func mayBlock() -> Bool { reader?.mayBlock ?? false }
        /// The next chunk, cut short where a live input pauses; empty at the end.
        func nextChunk() async throws -> RecordChunk {
            let chunk: RecordChunk
            if let logRecords {
                // Fewer lines than a chunk where a live input would wait, where they pass 4 MiB,
                // or before a read error (`LineReader.nextLines`), blank lines left out.
                chunk = .lines(try logRecords.nextLines(upTo: Self.chunkSize), logRecords.format, input: logRecords.input)
            } else {
                var records: [BatchRecord] = []
                records.reserveCapacity(Self.chunkSize)
                while records.count < Self.chunkSize, records.isEmpty || !mayBlock(), let record = try await iterator.next() { records.append(record) }
                chunk = .records(records)
            }
            recordsIn += chunk.count
            return chunk
        }
        /// The chunk's verdicts, by a worker that shares what it can with the chunks it judged before.
        @Sendable func judge(_ chunk: RecordChunk, _ sharing: inout JudgementSharing) async -> ([BatchVerdict], Output) {
            sharing.compileOwnPolicy()
            var verdicts: [BatchVerdict] = []
            verdicts.reserveCapacity(chunk.count)
            switch chunk {
            case let .lines(block, format, input):
                var next = 0
                while let (line, pending) = judgeNow(block, from: &next, of: input, format: format, into: &verdicts, sharing: &sharing) {
                    verdicts.append(await finish(RecordPlace(line: line, input: input), pending, by: sharing.policy))
                }
            case let .records(records):
                for record in records {
                    switch start(record, sharing: &sharing) {
                    case let .judged(verdict): verdicts.append(verdict)
                    case let .waiting(pending): verdicts.append(await finish(RecordPlace(record), pending, by: sharing.policy))
                    }
                }
            }
            return (verdicts, transform(verdicts))
        }
        // A worker each job, handed from chunk to chunk, the first ones first. With several, each
        // of the first as many as there are cores judges with a policy of its own, compiled on its
        // first chunk (in parallel, and only by workers that get one), and each decodes with a
        // memory of its own (`DecodingMemory`); one job uses the policy and its memory.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var idleWorkers = (0..<jobs).reversed().map {
            JudgementSharing(policy: policy, ownPolicy: jobs > 1 && $0 < cores, decodingMemory: jobs > 1 ? DecodingMemory() : nil)
        }
        if jobs == 1 {
            var sharing = idleWorkers[0]
            while true {
                let chunk = try await nextChunk()
                if chunk.isEmpty { break }
                let (verdicts, output) = await judge(chunk, &sharing)
                try await emit(verdicts, output)
                verdictsOut += verdicts.count
                try Task.checkCancellation()
            }
        } else {
            // A read error (a log cut short) ends the reading, not the run: the chunks in work
            // are judged and emitted, every record read before it gets its verdict, then it is thrown.
            var readError: (any Error)?
            try await withThrowingTaskGroup(of: (Int, [BatchVerdict], Output, JudgementSharing).self) { group in
                var submitted = 0, emitted = 0, inFlight = 0
                var finished: [Int: ([BatchVerdict], Output)] = [:]
                var exhausted = false
                func submitNext() async throws {
                    let chunk: RecordChunk
                    do {
                        chunk = try await nextChunk()
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        (readError, exhausted) = (error, true)
                        return
                    }
                    guard !chunk.isEmpty else {
                        exhausted = true
                        return
                    }
                    let index = submitted
                    submitted += 1
                    inFlight += 1
                    // At most `jobs` chunks are in work, so a worker is idle.
                    var sharing = idleWorkers.removeLast()
                    group.addTask {
                        let (verdicts, output) = await judge(chunk, &sharing)
                        return (index, verdicts, output, sharing)
                    }
                }
                while !exhausted, inFlight < jobs, inFlight == 0 || !mayBlock() { try await submitNext() }
                while let (index, verdicts, output, worker) = try await group.next() {
                    inFlight -= 1
                    idleWorkers.append(worker)
                    finished[index] = (verdicts, output)
                    while let (ready, readyOutput) = finished.removeValue(forKey: emitted) {
                        try await emit(ready, readyOutput)
                        verdictsOut += ready.count
                        emitted += 1
                    }
                    try Task.checkCancellation()
                    while !exhausted, inFlight < jobs, inFlight == 0 || !mayBlock() { try await submitNext() }
                }
            }
            if let readError { throw readError }
        }
        guard recordsIn == verdictsOut else {
            throw BatchInputError("\(recordsIn) records were read but \(verdictsOut) verdicts written; the run is incomplete")
        }
        return recordsIn
    }
}

/// A chunk of a run's records: a block of a log's lines as its reader returned them, with the
/// format they are read with and the input they are named by, or records made elsewhere.
///
/// The format and input held once a chunk, not once a line: a record carrying them had the
/// format's object retained and released several times a line, from every worker's core.
private enum RecordChunk: Sendable {
    case lines(LineBlock, SharedRecordFormat, input: String?)
    case records([BatchRecord])

    var count: Int {
        switch self {
        case let .lines(block, _, _): block.spans.count
        case let .records(records): records.count
        }
    }

    var isEmpty: Bool { count == 0 }
}

extension BatchEvaluator.RecordPlace {
    init(_ record: BatchRecord) {
        self.init(line: record.line, input: record.input)
    }
}

extension EvaluationRequest {
    /// Makes this the request of a record's `token` at `now`: the fields a batch sets per record.
    ///
    /// - Parameters:
    ///   - digest: The token's `DecodedTokenCache.Key.digest`, when the verdict memo took it.
    ///   - atClock: Whether `now` is the wall clock's (the record has no time, nor the batch).
    ///   - signatureCache: The cache to remember the signature check in; nil on a first sighting.
    fileprivate mutating func setRecord(_ token: TokenText, digest: Int?, at now: UnixTime, atClock: Bool, signatureCache: SignatureCache?,
                                        usesDecodedTokenCache: Bool) {
        presentedToken = token
        tokenDigest = digest
        self.now = now
        clockSource = atClock ? BatchEvaluator.wallClock : "caller"
        // Most records set the one the last had (none, for a token not seen before).
        if self.signatureCache !== signatureCache { self.signatureCache = signatureCache }
        self.usesDecodedTokenCache = usesDecodedTokenCache
    }
}
