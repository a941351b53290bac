import Foundation
import PolicyEngine
@_spi(JSONWriting) import PolicyJOSE
import PolicyRuntime
import Rules

/// `Benchmarks instructions [RECORDS]`: instructions per record of batch's per-record path (a
/// line read, its record parsed, the token judged, the verdict line written), counted by
/// callgrind, for each algorithm's unique and ×10-repeated corpus.
///
/// Each figure is the difference between a run over 2×RECORDS records and one over RECORDS,
/// divided by RECORDS, so process start-up and policy compilation cancel out. Instruction
/// counts repeat from run to run where times on these shared machines do not, and
/// `perf stat -e instructions` is not supported on every machine. The records are judged on
/// one thread, in this process (`Benchmarks records`), with `BatchEvaluator.evaluateNow`:
/// valgrind 3.19 fails when `policy-run` starts its concurrency threads, and cannot read the
/// DWARF 5 of a Swift build, so it runs a copy without debug information.
enum InstructionsBenchmark {
    struct Row {
        let algorithm: JWSAlgorithm
        let corpus: String
        let perRecord: Int
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
            for (name, file) in [("unique", \Corpus.uniqueFile), ("×10 repeats", \Corpus.repeatedFile)] {
                let small = try instructions(binary, corpora[0], file: corpora[0][keyPath: file])
                let large = try instructions(binary, corpora[1], file: corpora[1][keyPath: file])
                rows.append(Row(algorithm: benchCase.algorithm, corpus: name, perRecord: (large - small) / records))
                FileHandle.standardError.write(Data("\(benchCase.algorithm.rawValue) \(name): \(small) and \(large) instructions\n".utf8))
            }
        }
        return rows
    }

    /// The instructions callgrind counted over `Benchmarks records` on `file`.
    private static func instructions(_ binary: URL, _ corpus: Corpus, file: URL) throws -> Int {
        let (status, text) = try runToEnd(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary.path, "records", corpus.policyFile.path, file.path],
                                          environment: ["BENCH_SECRET": corpus.secret ?? "", "PATH": "/usr/bin:/bin"])
        // "==123== Collected : 123456789"
        guard status == 0,
              let line = text.split(separator: "\n").last(where: { $0.contains("Collected :") }),
              let count = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw BenchmarkError("callgrind over Benchmarks records (\(file.lastPathComponent)) failed: \(text.suffix(1500))")
        }
        return count
    }

    /// `Benchmarks records POLICY FILE`: judges every record of FILE on this thread, as a batch
    /// worker does, and writes the verdict lines to a buffer; what callgrind counts.
    static func judgeRecords(policyFile: String, file: String) throws {
        let policy = try Policy.load(file: policyFile)
        let evaluator = BatchEvaluator(policy: policy, jobs: 1)
        guard let handle = FileHandle(forReadingAtPath: file) else { throw BenchmarkError("cannot read \(file)") }
        let reader = LineReader(handle: handle)
        let format = BatchRecordFormat()
        var writer = JSONWriter(capacity: 1 << 16)
        var judged = 0
        while let line = try reader.next() {
            guard let record = format.record(line), let verdict = evaluator.evaluateNow(record) else {
                throw BenchmarkError("line \(line.number) of \(file) could not be judged without waiting")
            }
            verdict.writeJSONLine(to: &writer)
            if writer.bytes.count > 1 << 16 { writer = JSONWriter(capacity: 1 << 16) }
            judged += 1
        }
        FileHandle.standardError.write(Data("\(judged) records judged\n".utf8))
    }

    static func table(_ rows: [Row]) -> String {
        var lines = ["| alg | corpus | instructions per record |", "|---|---|---:|"]
        for row in rows { lines.append("| \(row.algorithm.rawValue) | \(row.corpus) | \(row.perRecord.formatted(.number.grouping(.automatic))) |") }
        return lines.joined(separator: "\n")
    }
}
