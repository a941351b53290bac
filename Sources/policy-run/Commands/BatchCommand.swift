import ArgumentParser
import Foundation
import PolicyCommandLine
import PolicyRuntime
@_spi(JSONWriting) import PolicyJOSE
import PolicyAuthoring

/// `policy-run batch`: every record of token logs judged as of its own time, in order.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Validate token logs: one verdict per record, each judged at the record's own time.",
        discussion: """
        INPUT is a file (gzip-compressed or not) or '-' for standard input (the default). Records \
        are JSON lines ({"token": ..., "ts": ...}) or, with --input-format lines, one token per \
        line; blank lines are not records. Verdicts are written as JSON lines in input order, each \
        with its line number; lines that hold no usable record get a verdict saying why. A \
        summary goes to standard error. Exit status: 0 all valid, 1 any invalid, 2 usage, policy \
        or input error.
        """
    )

    @OptionGroup var options: PolicyOptions

    @OptionGroup var records: RecordFormatOptions

    @Option(help: ArgumentHelp("Where verdicts go: a file, or '-' for standard output.", valueName: "FILE"))
    var output = "-"

    @Option(help: ArgumentHelp("How verdicts are written: jsonl, a JSON line each, or arrow, an Arrow IPC stream (for Spark, pandas, Polars or DuckDB).",
                               valueName: "FORMAT"))
    var outputFormat: VerdictFormat = .jsonl

    @Flag(help: "Add each token's claims to its verdict.")
    var includeClaims = false

    @Flag(help: "Write only invalid verdicts (the summary still counts all).")
    var onlyInvalid = false

    @Option(help: ArgumentHelp("Also write the summary as JSON to FILE ('-' for standard output, after the verdicts).", valueName: "FILE"))
    var summaryJSON: String?

    @Option(help: ArgumentHelp("Also write a report as one self-contained HTML page to FILE: verdicts, issuers and kids over record time, the findings with their first lines.",
                               valueName: "FILE.html"))
    var report: String?

    @Flag(help: "Report a verified token presented again within its lifetime (same iss and jti, or the same token without jti), with both lines.")
    var detectReplay = false

    @Option(help: ArgumentHelp("With --detect-replay: the most tokens remembered at once (default 250000, about 20 MB; 1000000 about 70 MB).", valueName: "N"))
    var replayCapacity = 250_000

    @Option(help: "Records evaluated in parallel, in chunks (default: all cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Verify every signature, even of tokens seen before.")
    var noCache = false

    @Option(help: ArgumentHelp("The memory for remembered signature checks, decoded tokens and verdicts: 64MiB by default; KiB, MiB or GiB.",
                               valueName: "SIZE"))
    var cacheSize: String?

    @Flag(help: "Read the input as it is: gzip is not recognised (for a caller that decompressed it, whose first line may start with any bytes).")
    var noDecompress = false

    @Option(help: ArgumentHelp("The longest line read whole; longer ones are cut and reported (default 1 MiB).", valueName: "BYTES"))
    var maxLineBytes: Int = BatchInputLimits.standard.maxLineBytes

    @Option(help: ArgumentHelp("The most one gzip input may decompress to (default 64 GiB).", valueName: "BYTES"))
    var maxDecompressedBytes: Int64 = BatchInputLimits.standard.maxDecompressedBytes

    @Option(help: ArgumentHelp("The most a gzip input may expand, past its first MiB (default 100 times).", valueName: "RATIO"))
    var maxGzipRatio: Int = BatchInputLimits.standard.maxCompressionRatio

    @Argument(help: "Token logs, gzip-compressed or not; '-' for standard input.")
    var inputs: [String] = []

    func validate() throws {
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be from 1 to 256, got \(jobs)") }
        guard maxLineBytes > 0, maxDecompressedBytes > 0, maxGzipRatio > 0 else {
            throw ValidationError("--max-line-bytes, --max-decompressed-bytes and --max-gzip-ratio must be positive")
        }
        guard maxLineBytes <= 1 << 30 else {
            throw ValidationError("--max-line-bytes must be at most 1073741824 (1 GiB): a line is held whole in memory, got \(maxLineBytes)")
        }
        guard outputFormat != .arrow || output != "-" || summaryJSON != "-" else {
            throw ValidationError("--summary-json - would follow the Arrow stream on standard output: write the summary to a file")
        }
        guard !noCache || cacheSize == nil else { throw ValidationError("give --no-cache or --cache-size, not both") }
        guard (1...100_000_000).contains(replayCapacity) else { throw ValidationError("--replay-capacity must be from 1 to 100000000, got \(replayCapacity)") }
        _ = try cacheBytes()
    }

    /// The bytes `--cache-size` gives the cache, or the default.
    private func cacheBytes() throws -> Int {
        try cacheSize.map { try CacheSizeOption.bytes($0, option: "--cache-size") } ?? SignatureCache.defaultMemoryLimit
    }

    func run() async throws {
        let policy = try options.compiledPolicy()
        guard policy.subjects == ["token"] else {
            throw ValidationError("batch checks token logs; policy \(policy.name) checks \(policy.subjects.joined(separator: ", ")) instead")
        }
        let format = try records.recordFormat()
        let undeclared = format.inputFields.keys.filter { name in !policy.inputs.contains { $0.name == name } }
        if let name = undeclared.sorted().first { throw ValidationError("--var-field \(name): policy \(policy.name) declares no input '\(name)'") }
        // Part of the memory keeps verdicts of tokens (from their first sighting, so a log of
        // unique tokens fills it), the rest checks (of tokens seen before, while verdicts are
        // kept) and decoded tokens (only where verdicts are not kept: see VerdictMemo).
        let cacheBytes = try cacheBytes()
        let verdictBytes = BatchEvaluator.verdictShare(of: cacheBytes, for: policy)
        let cache = noCache ? nil : SignatureCache(memoryLimit: cacheBytes - verdictBytes)
        let now = try options.time()
        var evaluator = BatchEvaluator(policy: policy, inputs: try options.inputs(), defaultTime: now, jobs: jobs,
                                       includeClaims: includeClaims, signatureCache: cache, verdictMemory: noCache ? nil : verdictBytes)
        evaluator.detectReplay = detectReplay
        var replays = detectReplay ? BatchReplayDetector(capacity: replayCapacity) : nil
        let sources = inputs.isEmpty ? ["-"] : inputs
        // Every input is opened before a verdict is written: a missing second file is a
        // mistake on the command line, not something to find after the first is judged.
        let handles = try sources.map { $0 == "-" ? FileHandle.standardInput : try InputFile.open($0) }
        let writer = try OutputWriter(path: output, format: outputFormat)
        let reportFile = try HTMLReportFile(report)
        var logReport = reportFile == nil ? nil : BatchLogReport()
        var progress = BatchProgress(totalBytes: sources.contains("-") ? nil : sources.reduce(0) { $0 + Self.size(of: $1) })
        let limits = BatchInputLimits(maxLineBytes: maxLineBytes, maxDecompressedBytes: maxDecompressedBytes, maxCompressionRatio: maxGzipRatio)
        var summary = BatchSummary()
        summary.limits = limits
        if detectReplay { summary.replays = BatchSummary.Replays() }
        let started = ContinuousClock.now
        for (source, handle) in zip(sources, handles) {
            let reader = LineReader(handle: handle, limits: limits, decompress: !noDecompress)
            let records = BatchRecords(reader: reader, format: format, input: sources.count > 1 ? source : nil)
            let bytesBefore = progress.bytesDone
            do {
                try await evaluator.run(records, transform: { [onlyInvalid, outputFormat, reporting = reportFile != nil] verdicts in
                    Self.written(verdicts, onlyInvalid: onlyInvalid, format: outputFormat, reporting: reporting)
                }) { verdicts, chunk in
                    var chunk = chunk
                    // Replays are found in input order, on the one task that emits: a chunk with
                    // one is counted and written again with its verdicts marked.
                    // Marked in place: a copy of the detector would copy every token it holds.
                    if replays != nil {
                        var marked = verdicts
                        let found = replays?.mark(&marked) ?? []
                        if !found.isEmpty {
                            summary.replays?.add(found)
                            chunk = Self.written(marked, onlyInvalid: onlyInvalid, format: outputFormat, reporting: logReport != nil)
                        }
                    }
                    summary.merge(chunk.counts)
                    if let part = chunk.report { logReport?.merge(part) }
                    if let lines = chunk.lines { try lines.withBytes { try writer.write($0) } } else { try writer.write(chunk.bytes) }
                    // A live input that has nothing more yet: its verdicts so far are due now.
                    if reader.mayBlock { try writer.flush() }
                    progress.update(records: summary.records, bytes: bytesBefore + reader.bytesRead)
                }
            } catch let error as BatchInputError {
                // The verdicts of the records read so far are kept, as they were written.
                try? writer.finish()
                FileHandle.standardError.write(Data("\nerror: \(source == "-" ? "standard input" : source): \(InertText.escaped(error.description))\n".utf8))
                throw ExitCode(2)
            }
            progress.bytesDone = bytesBefore + reader.bytesRead
        }
        try writer.finish()
        progress.finish()
        if let detector = replays {
            summary.replays?.capacity = detector.capacity
            summary.replays?.peak = detector.peak
            summary.replays?.forgotten = detector.forgotten
        }
        summary.reusedVerdicts = evaluator.reusedVerdicts
        summary.firstSightings = evaluator.firstSightings
        let seconds = (ContinuousClock.now - started).seconds
        FileHandle.standardError.write(Data(BatchSummaryText(summary, seconds: seconds, cache: cache?.statistics).rendered.utf8))
        if let summaryJSON {
            let text = summary.json(seconds: seconds, cache: cache?.statistics, peakMemoryBytes: Self.peakMemoryBytes()).prettyPrinted() + "\n"
            do {
                try OutputFile.write(text, to: summaryJSON)
            } catch {
                throw ValidationError("the summary: \(error.description)")
            }
        }
        if let reportFile, let logReport {
            try reportFile.write(BatchReportPage(policy: policy.name, inputs: sources.map { $0 == "-" ? "standard input" : $0 }, summary: summary,
                                                 report: logReport, seconds: seconds, cache: cache?.statistics, generated: .now).html)
        }
        if summary.invalid > 0 { throw ExitCode(1) }
    }

    /// What a worker makes of a chunk of verdicts: their counts, their lines or record batch,
    /// and their part of the HTML report when one is written.
    private struct WrittenChunk: Sendable {
        var counts = BatchSummary()
        /// The JSON lines, written out from the writer's own buffer (copied once, into the output's).
        var lines: JSONWriter?
        /// The Arrow record batch.
        var bytes: [UInt8] = []
        var report: BatchLogReport?
    }

    private static func written(_ verdicts: [BatchVerdict], onlyInvalid: Bool, format: VerdictFormat, reporting: Bool) -> WrittenChunk {
        var chunk = WrittenChunk()
        switch format {
        case .jsonl:
            // Room for a valid line (about 150 bytes) and an invalid one (350 and more) in the
            // proportion of a log with a few invalid: most chunks never grow their buffer.
            var lines = JSONWriter(capacity: verdicts.count * 256)
            chunk.counts.add(contentsOf: verdicts)
            for verdict in verdicts where !onlyInvalid || !verdict.verdict.valid { verdict.writeJSONLine(to: &lines) }
            chunk.lines = lines
        case .arrow:
            chunk.counts.add(contentsOf: verdicts)
            BatchVerdictColumns.writeRecordBatches(verdicts.lazy.filter { !onlyInvalid || !$0.verdict.valid }, to: &chunk.bytes)
        }
        if reporting {
            var report = BatchLogReport()
            for verdict in verdicts { report.add(verdict) }
            chunk.report = report
        }
        return chunk
    }

    /// The process's peak resident memory: `VmHWM` of /proc/self/status, which (unlike
    /// getrusage's `ru_maxrss`) does not inherit the peak of the process that spawned this one.
    private static func peakMemoryBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kilobytes * 1024
    }

    private static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// How `batch` writes its verdicts.
enum VerdictFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl
    case arrow
}

/// Verdicts to a file or standard output, written in large blocks: JSON lines, or an Arrow
/// stream opened by its schema and closed by its end marker.
final class OutputWriter {
    private let handle: FileHandle
    /// The file being written, renamed into place by `finish()`; nil for standard output.
    private let file: OutputFile?
    private var buffer: [UInt8] = []
    private let end: [UInt8]

    init(path: String, format: VerdictFormat) throws {
        if path == "-" {
            handle = FileHandle.standardOutput
            file = nil
        } else {
            do {
                let file = try OutputFile.open(path)
                handle = file.handle
                self.file = file
            } catch {
                throw ValidationError(error.description)
            }
        }
        buffer.reserveCapacity(1 << 16)
        switch format {
        case .jsonl: end = []
        case .arrow:
            buffer.append(contentsOf: BatchVerdictColumns.streamStart)
            end = BatchVerdictColumns.streamEnd
        }
    }

    /// Writes what is buffered and the format's end, and puts the file in place.
    func finish() throws {
        buffer.append(contentsOf: end)
        try flush()
        do {
            try file?.commit()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Writes verdicts already formatted.
    func write(_ lines: some Collection<UInt8>) throws {
        buffer.append(contentsOf: lines)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
