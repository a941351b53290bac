public import Foundation

/// Evaluates token-log records against one policy, each as of its own time, in parallel, with
/// verdicts coming out in input order (POLICY-FORMAT.md, `policy-run batch`).
///
/// The pipeline is bounded: at most `jobs` chunks of records are in work at once, so memory
/// stays flat however long the log. Repeated tokens are verified once through the signature
/// cache; their times and claims are still judged per record.
public struct BatchEvaluator: Sendable {
    public let policy: Policy
    /// Inputs for every record; a record's mapped fields override them.
    public var inputs: [String: JSONValue]
    /// The time of records without one; nil means the wall clock when the record is evaluated.
    public var defaultTime: Double?
    /// Chunks evaluated at once.
    public var jobs: Int
    /// Whether verdicts carry the token's claims.
    public var includeClaims: Bool
    /// Nil disables remembering signature checks.
    public var signatureCache: SignatureCache?

    /// Records per unit of parallel work: large enough to amortise scheduling, small enough
    /// to keep the read-ahead small.
    static let chunkSize = 64

    public init(policy: Policy, inputs: [String: JSONValue] = [:], defaultTime: Double? = nil,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, includeClaims: Bool = false,
                signatureCache: SignatureCache? = SignatureCache()) {
        self.policy = policy
        self.inputs = inputs
        self.defaultTime = defaultTime
        self.jobs = max(1, jobs)
        self.includeClaims = includeClaims
        self.signatureCache = signatureCache
    }

    /// The verdict on one record; never throws: a record that cannot be judged gets a verdict
    /// saying why.
    public func evaluate(_ record: BatchRecord) async -> BatchVerdict {
        func refused(_ code: FindingCode, _ message: String) -> BatchVerdict {
            let finding = Finding(rule: "batch.record", code: code, message: message, at: "\(record.input ?? "input"):\(record.line)")
            return BatchVerdict(line: record.line, input: record.input,
                                verdict: Verdict(policy: policy.name, valid: false, verified: false, findings: [finding], skipped: [], outputs: [:], trace: nil),
                                issuer: nil, kid: nil, claims: nil)
        }
        switch record.content {
        case let .malformed(code, message):
            return refused(code, message)
        case let .token(token, time, recordInputs):
            let now = time ?? defaultTime ?? Date().timeIntervalSince1970
            do {
                let (verdict, decoded) = try await policy.evaluateDecoding(token: token, inputs: inputs.merging(recordInputs) { $1 }, now: now,
                                                                           signatureCache: signatureCache)
                return BatchVerdict(line: record.line, input: record.input, verdict: verdict,
                                    issuer: decoded?.claims["iss"]?.stringValue, kid: decoded?.header.kid,
                                    claims: includeClaims ? decoded?.claims : nil)
            } catch {
                return refused(.recordFieldMissing, error.message)
            }
        }
    }

    /// Verdicts for `records`, in their order, evaluated `jobs` chunks at a time.
    public func verdicts<Records: AsyncSequence & Sendable>(for records: Records) -> AsyncThrowingStream<BatchVerdict, any Error>
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
    public func run<Records: AsyncSequence>(_ records: Records, emit: (BatchVerdict) async throws -> Void) async throws -> Int
    where Records.Element == BatchRecord {
        var iterator = records.makeAsyncIterator()
        var recordsIn = 0, verdictsOut = 0
        try await withThrowingTaskGroup(of: (Int, [BatchVerdict]).self) { group in
            var submitted = 0, emitted = 0, inFlight = 0
            var finished: [Int: [BatchVerdict]] = [:]
            var exhausted = false
            func submitNext() async throws {
                var chunk: [BatchRecord] = []
                while chunk.count < Self.chunkSize, let record = try await iterator.next() { chunk.append(record) }
                guard !chunk.isEmpty else {
                    exhausted = true
                    return
                }
                recordsIn += chunk.count
                let index = submitted
                submitted += 1
                inFlight += 1
                group.addTask {
                    var verdicts: [BatchVerdict] = []
                    verdicts.reserveCapacity(chunk.count)
                    for record in chunk { verdicts.append(await evaluate(record)) }
                    return (index, verdicts)
                }
            }
            while !exhausted, inFlight < jobs { try await submitNext() }
            while let (index, verdicts) = try await group.next() {
                inFlight -= 1
                finished[index] = verdicts
                while let ready = finished.removeValue(forKey: emitted) {
                    for verdict in ready { try await emit(verdict) }
                    verdictsOut += ready.count
                    emitted += 1
                }
                try Task.checkCancellation()
                while !exhausted, inFlight < jobs { try await submitNext() }
            }
        }
        guard recordsIn == verdictsOut else {
            throw BatchInputError("\(recordsIn) records were read but \(verdictsOut) verdicts written; the run is incomplete")
        }
        return recordsIn
    }
}
