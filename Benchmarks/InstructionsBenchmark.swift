import Foundation
import PolicyEngine
@_spi(JSONWriting) import PolicyJOSE
import PolicyRuntime
import Rules

/// `Benchmarks instructions [RECORDS]`: instructions per record of batch's per-record path (a
/// block of lines read, each line scanned, its token judged, the verdict line written), counted by
/// callgrind, for each algorithm's unique, ×10-repeated, valid-only and one-token corpus: in all,
/// outside the cryptographic libraries, and in calls to `malloc`.
///
/// Each figure is the difference between a run over 2×RECORDS records and one over RECORDS,
/// divided by the difference in records, so process start-up and policy compilation cancel out. Instruction
/// counts repeat from run to run where times on these shared machines do not, and
/// `perf stat -e instructions` is not supported on every machine. The records are judged on
/// one thread, in this process (`Benchmarks records`), with `BatchEvaluator.judgeNow`:
/// valgrind 3.19 fails when `policy-run` starts its concurrency threads, and cannot read the
/// DWARF 5 of a Swift build, so it runs a copy without debug information.
enum InstructionsBenchmark {
    struct Row {
        let algorithm: JWSAlgorithm
        let corpus: String
        /// Instructions per record, everything counted.
        let perRecord: Int
        /// Instructions per record besides the cryptography's calls (OpenSSL, BoringSSL, libsodium,
        /// and what they call): what the engine itself costs.
        let nonCrypto: Int
        /// Calls to `malloc` (and its kin) per record but those the cryptographic libraries make.
        let allocations: Double
        /// Calls to `malloc` per record made by the cryptographic libraries (issue 37 chooses those).
        let cryptoAllocations: Double
        /// What issue 34 asks of this row, and whether it is met.
        let target: String
    }


    static func run(records: Int) throws -> [Row] {
        guard commandOutput(["valgrind", "--version"]) != nil else { throw BenchmarkError("valgrind is not installed (apt-get install valgrind)") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("instructions-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = folder.appendingPathComponent("Benchmarks")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath(), to: binary)
        guard commandOutput(["strip", "--strip-debug", binary.path]) != nil else { throw BenchmarkError("strip (binutils) is needed") }
        var rows: [Row] = []
        for benchCase in BatchBenchmark.cases(scale: 1) {
            var corpora: [Corpus] = []
            for (index, size) in [records, 2 * records].enumerated() {
                let sized = BatchBenchmark.Case(algorithm: benchCase.algorithm, records: size, reference: benchCase.reference, target: benchCase.target)
                let directory = folder.appendingPathComponent("\(benchCase.algorithm.rawValue)-\(index)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                corpora.append(try Corpus(sized, in: directory))
            }
            let files: [(String, KeyPath<Corpus, URL>)] = [("unique", \.uniqueFile), ("×10 repeats", \.repeatedFile), ("valid only", \.validFile),
                                                           ("one token repeated", \.oneTokenFile)]
            for (name, file) in files {
                let small = try profile(binary, corpora[0], file: corpora[0][keyPath: file], folder: folder)
                let large = try profile(binary, corpora[1], file: corpora[1][keyPath: file], folder: folder)
                let count = try lineCount(corpora[1][keyPath: file]) - lineCount(corpora[0][keyPath: file])
                let perRecord = (large.total - small.total) / count
                let nonCrypto = perRecord - (large.cryptoInstructions - small.cryptoInstructions) / count
                let cryptoAllocations = large.cryptoAllocations - small.cryptoAllocations
                let allocations = Double(large.allocations - small.allocations - cryptoAllocations) / Double(count)
                rows.append(Row(algorithm: benchCase.algorithm, corpus: name, perRecord: perRecord, nonCrypto: nonCrypto, allocations: allocations,
                                cryptoAllocations: Double(cryptoAllocations) / Double(count),
                                target: target(benchCase.algorithm, name, perRecord: perRecord, nonCrypto: nonCrypto, allocations: allocations)))
                FileHandle.standardError.write(Data("\(benchCase.algorithm.rawValue) \(name): \(small.total) and \(large.total) instructions\n".utf8))
            }
        }
        return rows
    }

    /// Issue 34's targets: a unique HS256 or RS256 record ≤ 20,000 instructions besides its
    /// cryptography, a reused HS256 verdict ≤ 8,000 in all, a valid record ≤ 5 allocations of
    /// the engine's own.
    private static func target(_ algorithm: JWSAlgorithm, _ corpus: String, perRecord: Int, nonCrypto: Int, allocations: Double) -> String {
        func verdict(_ met: Bool, _ text: String) -> String { met ? "meets \(text)" : "BELOW \(text)" }
        switch corpus {
        case "unique" where algorithm == .hs256 || algorithm == .rs256: return verdict(nonCrypto <= 20_000, "non-crypto ≤ 20,000")
        case "one token repeated" where algorithm == .hs256: return verdict(perRecord <= 8_000, "≤ 8,000")
        // Judged at the tenth the table prints: a table's growth as the memo fills (one
        // allocation in thousands of records) is not an allocation a record makes.
        case "valid only": return verdict((allocations * 10).rounded() <= 50, "allocations ≤ 5")
        default: return ""
        }
    }

    private static func lineCount(_ file: URL) throws -> Int {
        try Data(contentsOf: file).reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// Callgrind's profile of `Benchmarks records` over `file`.
    private static func profile(_ binary: URL, _ corpus: Corpus, file: URL, folder: URL) throws -> CallgrindProfile {
        let output = folder.appendingPathComponent("callgrind.out")
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, text) = try runToEnd(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["valgrind", "--tool=callgrind", "--callgrind-out-file=\(output.path)", binary.path, "records", corpus.policyFile.path, file.path],
                                          environment: ["BENCH_SECRET": corpus.secret ?? "", "PATH": "/usr/bin:/bin"])
        guard status == 0 else { throw BenchmarkError("callgrind over Benchmarks records (\(file.lastPathComponent)) failed: \(text.suffix(1500))") }
        return try CallgrindProfile(file: output)
    }

    /// `Benchmarks records POLICY FILE`: judges every record of FILE on this thread, as a batch
    /// worker does (a block of lines at a time, `BatchEvaluator.judgeNow`), and writes the
    /// verdict lines to a buffer; what callgrind counts.
    static func judgeRecords(policyFile: String, file: String) throws {
        let policy = try Policy.load(file: policyFile)
        let evaluator = BatchEvaluator(policy: policy, jobs: 1)
        guard let handle = FileHandle(forReadingAtPath: file) else { throw BenchmarkError("cannot read \(file)") }
        let lines = BatchRecords(reader: LineReader(handle: handle), format: BatchRecordFormat()).makeAsyncIterator()
        let format = SharedRecordFormat(BatchRecordFormat())
        var writer = JSONWriter(capacity: 1 << 16)
        var judged = 0
        var sharing = JudgementSharing(policy: evaluator.policy)
        var verdicts: [BatchVerdict] = []
        while true {
            let block = try lines.nextLines(upTo: BatchEvaluator.chunkSize)
            if block.spans.isEmpty { break }
            var next = 0
            verdicts.removeAll(keepingCapacity: true)
            if let (line, _) = evaluator.judgeNow(block, from: &next, of: nil, format: format, into: &verdicts, sharing: &sharing) {
                throw BenchmarkError("line \(line) of \(file) could not be judged without waiting")
            }
            for verdict in verdicts {
                verdict.writeJSONLine(to: &writer)
                // Emptied before it outgrows its storage: the figures count writing lines, not copying a full buffer.
                if writer.byteCount > (1 << 16) - 4096 { writer.reset() }
            }
            judged += verdicts.count
        }
        FileHandle.standardError.write(Data("\(judged) records judged\n".utf8))
    }

    static func table(_ rows: [Row]) -> String {
        var lines = ["| alg | corpus | instructions per record | besides the crypto calls | mallocs per record, ours | the crypto library's | target |",
                     "|---|---|---:|---:|---:|---:|---|"]
        for row in rows {
            lines.append("| \(row.algorithm.rawValue) | \(row.corpus) | \(row.perRecord.formatted(.number.grouping(.automatic))) | "
                         + "\(row.nonCrypto.formatted(.number.grouping(.automatic))) | \(String(format: "%.1f", row.allocations)) | \(String(format: "%.1f", row.cryptoAllocations)) | \(row.target) |")
        }
        return lines.joined(separator: "\n")
    }
}
