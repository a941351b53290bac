import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `Benchmarks spark [RECORDS]`: generated logs of RECORDS and 2 × RECORDS lines, each judged by
/// `policy-run batch --jobs 2` and by `policy_spark` on Spark `local[2]` in the same run, both
/// writing every verdict to disk. The overhead ratio is batch's time over Spark's: per record
/// (the difference between the two sizes, medians of `rounds`; Spark's inside one warm session,
/// `spark-warm.py`, since a whole process's fixed start — the JVM, its compilers, the session —
/// varies by seconds from run to run), and end to end (`python3 -m policy_spark` on the larger
/// log, as a user runs it, against batch).
enum SparkBenchmark {
    struct Case {
        let algorithm: JWSAlgorithm
        /// Whether the ≥ 0.85 target applies: a record whose check is cheaper than Spark's own
        /// per-record work (HS256) shows the floor of that work instead.
        let targeted: Bool
    }

    static let target = 0.85
    /// Spark's split size: several partitions per core, so that the last ones do not leave a
    /// core idle (docs/scale.md).
    static let partitionBytes = "32m"

    /// Runs of each size, each tool; the median is kept.
    static let rounds = 3

    struct Row {
        let algorithm: JWSAlgorithm
        let records: Int
        let partitions: Int
        /// Median seconds for RECORDS and for 2 × RECORDS records.
        let batch: (Double, Double)
        /// The same in one warm Spark session.
        let spark: (Double, Double)
        /// `python3 -m policy_spark` on 2 × RECORDS records, from its start to its exit.
        let sparkCommand: Double
        let targeted: Bool

        var perRecordRatio: Double { (batch.1 - batch.0) / (spark.1 - spark.0) }
        var endToEndRatio: Double { batch.1 / sparkCommand }
        /// What a run costs before its first record: the command's time beyond the warm session's.
        var sparkFixedSeconds: Double { sparkCommand - spark.1 }
    }

    static func run(records: Int) throws -> [Row] {
        let policyRun = try builtPolicyRun()
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let package = root.appendingPathComponent("spark")
        let warm = root.appendingPathComponent("Benchmarks/spark-warm.py")
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("policy_spark/__main__.py").path),
              FileManager.default.fileExists(atPath: warm.path) else {
            throw BenchmarkError("run it from the package root: spark/policy_spark or Benchmarks/spark-warm.py is not in \(root.path)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spark-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The policy in a directory of its own (policy_spark ships it to every executor), the logs beside it.
        let policies = folder.appendingPathComponent("policies")
        try FileManager.default.createDirectory(at: policies, withIntermediateDirectories: true)
        return try [Case(algorithm: .es256, targeted: true), Case(algorithm: .hs256, targeted: false)].map { benchCase in
            let corpus = try Corpus(BatchBenchmark.Case(algorithm: benchCase.algorithm, records: 2 * records, reference: "", target: 0), in: policies)
            let whole = folder.appendingPathComponent(corpus.uniqueFile.lastPathComponent)
            try FileManager.default.moveItem(at: corpus.uniqueFile, to: whole)
            // Only the unique log is used; the others must not be shipped with the policy.
            for log in corpus.logFiles where log != corpus.uniqueFile { try FileManager.default.removeItem(at: log) }
            let half = folder.appendingPathComponent("half-" + whole.lastPathComponent)
            let lines = try Data(contentsOf: whole).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            try Data(lines.prefix(records).joined(separator: [UInt8(ascii: "\n")]) + [UInt8(ascii: "\n")]).write(to: half)
            defer { for log in [whole, half] { try? FileManager.default.removeItem(at: log) } }
            FileHandle.standardError.write(Data("\(benchCase.algorithm.rawValue): \(records) and \(2 * records) records generated\n".utf8))
            let batchOutput = folder.appendingPathComponent("batch.jsonl"), sparkOutput = folder.appendingPathComponent("spark-out")
            var batch: [[Double]] = [[], []]
            for _ in 0..<rounds {
                for (index, log) in [half, whole].enumerated() {
                    batch[index].append(try timed { try runBatch(policyRun, corpus, log: log, output: batchOutput) }.seconds)
                }
            }
            let spark = try runWarmSpark(policyRun, corpus, logs: [(half, records), (whole, 2 * records)], package: package, script: warm,
                                         output: sparkOutput)
            let command = try timed { try runSpark(policyRun, corpus, log: whole, records: 2 * records, package: package, output: sparkOutput) }
            return Row(algorithm: benchCase.algorithm, records: records, partitions: command.value, batch: (median(batch[0]), median(batch[1])),
                       spark: (median(spark[0]), median(spark[1])), sparkCommand: command.seconds, targeted: benchCase.targeted)
        }
    }

    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| alg | records | batch --jobs 2 (s) | Spark local[2], warm (s) | partitions | ratio per record | target | policy_spark command (s) | ratio end to end | Spark's fixed start (s) |",
            "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
        ]
        func seconds(_ pair: (Double, Double)) -> String { String(format: "%.1f / %.1f", pair.0, pair.1) }
        for row in rows {
            let met = row.targeted ? (row.perRecordRatio >= target ? "meets" : "BELOW") + " ≥ \(target)" : "(floor: cheapest check)"
            lines.append("| \(row.algorithm.rawValue) | \(row.records) / \(2 * row.records) | \(seconds(row.batch)) | \(seconds(row.spark)) | "
                         + "\(row.partitions) | \(String(format: "%.2f", row.perRecordRatio)) | \(met) | \(String(format: "%.1f", row.sparkCommand)) | "
                         + "\(String(format: "%.2f", row.endToEndRatio)) | "
                         + "\(String(format: "%.1f", row.sparkFixedSeconds)) |")
        }
        return lines.joined(separator: "\n")
    }

    private static func timed<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try body()
        return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Runs a process to its end, and fails unless it exits with `status`; returns its standard error.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String], expecting status: Int32) throws -> String {
        let run = try runToEnd(URL(fileURLWithPath: executable), arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        guard run.status == status else {
            throw BenchmarkError("\(URL(fileURLWithPath: executable).lastPathComponent) exited with status \(run.status): \(run.standardError.suffix(2000))")
        }
        return run.standardError
    }

    private static func runBatch(_ policyRun: URL, _ corpus: Corpus, log: URL, output: URL) throws {
        // Exit 1 is expected: a quarter of each corpus is invalid.
        try run(policyRun.path, ["batch", "--policy", corpus.policyFile.path, "--jobs", "2", "--output", output.path, log.path],
                    environment: ["BENCH_SECRET": corpus.secret ?? ""], expecting: 1)
    }

    /// Runs `spark-warm.py` over `logs`; returns each log's seconds, `rounds` of them.
    private static func runWarmSpark(_ policyRun: URL, _ corpus: Corpus, logs: [(URL, Int)], package: URL, script: URL,
                                     output: URL) throws -> [[Double]] {
        let result = output.deletingLastPathComponent().appendingPathComponent("spark-warm.json")
        try? FileManager.default.removeItem(at: result)
        try run("/usr/bin/env", ["python3", script.path, corpus.policyFile.path, policyRun.path, output.path, result.path, "\(rounds)"]
                    + logs.map { "\($0.0.path):\($0.1)" },
                environment: ["BENCH_SECRET": corpus.secret ?? "", "PYTHONPATH": package.path], expecting: 0)
        let times = try JSONSerialization.jsonObject(with: Data(contentsOf: result)) as? [String: [Double]]
        return try logs.map { log in
            guard let seconds = times?[log.0.path], seconds.count == rounds else {
                throw BenchmarkError("spark-warm.py reported no \(rounds) runs of \(log.0.lastPathComponent): \(times ?? [:])")
            }
            return seconds
        }
    }

    /// Runs policy_spark; returns the number of partitions its summary reports.
    private static func runSpark(_ policyRun: URL, _ corpus: Corpus, log: URL, records: Int, package: URL, output: URL) throws -> Int {
        let summaryFile = output.deletingLastPathComponent().appendingPathComponent("spark-summary.json")
        // The previous run's summary must not stand in for this one's (exit 1 is also Python's for an uncaught error).
        try? FileManager.default.removeItem(at: summaryFile)
        let standardError = try run("/usr/bin/env", ["python3", "-m", "policy_spark", "--master", "local[2]", "--policy", corpus.policyFile.path,
                                     "--input", log.path, "--output", output.path, "--overwrite", "--policy-run", policyRun.path,
                                     "--conf", "spark.sql.files.maxPartitionBytes=\(partitionBytes)", "--summary-json", summaryFile.path],
                    environment: ["BENCH_SECRET": corpus.secret ?? "", "PYTHONPATH": package.path], expecting: 1)
        guard let text = try? Data(contentsOf: summaryFile) else {
            throw BenchmarkError("policy_spark wrote no summary for \(log.lastPathComponent): \(standardError.suffix(2000))")
        }
        let summary = try JSONSerialization.jsonObject(with: text) as? [String: Any]
        guard summary?["records"] as? Int == records, let partitions = summary?["partitions"] as? Int else {
            throw BenchmarkError("policy_spark judged \(log.lastPathComponent) unexpectedly: \(summary ?? [:])")
        }
        return partitions
    }
}
