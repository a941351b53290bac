import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// `Benchmarks spark [RECORDS]`: generated logs of RECORDS and 2 × RECORDS lines, each judged by
/// `policy-run batch --jobs 2` and by `python3 -m policy_spark` on Spark `local[2]` in the same
/// run, both writing every verdict to disk. The overhead ratio is batch's time over Spark's: per
/// record (the difference between the two sizes, so that Spark's fixed start — the JVM, the
/// session, the first job — cancels out, as start-up does in `instructions`), and end to end.
enum SparkBenchmark {
    struct Case {
        let algorithm: JWSAlgorithm
        /// Whether the ≥ 0.7 target applies: a record whose check is cheaper than Spark's own
        /// per-record work (HS256) shows the floor of that work instead.
        let targeted: Bool
    }

    static let target = 0.7
    /// Spark's split size: several partitions per core, so that the last ones do not leave a
    /// core idle (docs/scale.md).
    static let partitionBytes = "32m"

    struct Row {
        let algorithm: JWSAlgorithm
        let records: Int
        let partitions: Int
        /// Seconds for RECORDS and for 2 × RECORDS records.
        let batch: (Double, Double)
        let spark: (Double, Double)
        let targeted: Bool

        var perRecordRatio: Double { (batch.1 - batch.0) / (spark.1 - spark.0) }
        var endToEndRatio: Double { batch.1 / spark.1 }
        /// Spark's time beyond its per-record work: what a run costs before its first record.
        var sparkFixedSeconds: Double { 2 * spark.0 - spark.1 }
    }

    static func run(records: Int) throws -> [Row] {
        let policyRun = try builtPolicyRun()
        let package = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("spark")
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("policy_spark/__main__.py").path) else {
            throw BenchmarkError("run it from the package root: spark/policy_spark is not in \(FileManager.default.currentDirectoryPath)")
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
            try FileManager.default.removeItem(at: corpus.repeatedFile)
            let half = folder.appendingPathComponent("half-" + whole.lastPathComponent)
            let lines = try Data(contentsOf: whole).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            try Data(lines.prefix(records).joined(separator: [UInt8(ascii: "\n")]) + [UInt8(ascii: "\n")]).write(to: half)
            defer { for log in [whole, half] { try? FileManager.default.removeItem(at: log) } }
            FileHandle.standardError.write(Data("\(benchCase.algorithm.rawValue): \(records) and \(2 * records) records generated\n".utf8))
            let batchOutput = folder.appendingPathComponent("batch.jsonl"), sparkOutput = folder.appendingPathComponent("spark-out")
            var batch: [Double] = [], spark: [Double] = [], partitions = 0
            for (log, count) in [(half, records), (whole, 2 * records)] {
                batch.append(try timed { try runBatch(policyRun, corpus, log: log, output: batchOutput) }.seconds)
                let run = try timed { try runSpark(policyRun, corpus, log: log, records: count, package: package, output: sparkOutput) }
                spark.append(run.seconds)
                partitions = run.value
            }
            return Row(algorithm: benchCase.algorithm, records: records, partitions: partitions, batch: (batch[0], batch[1]),
                       spark: (spark[0], spark[1]), targeted: benchCase.targeted)
        }
    }

    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| alg | records | batch --jobs 2 (s) | Spark local[2] (s) | partitions | ratio per record | target | ratio end to end | Spark's fixed start (s) |",
            "|---|---:|---:|---:|---:|---:|---|---:|---:|",
        ]
        func seconds(_ pair: (Double, Double)) -> String { String(format: "%.1f / %.1f", pair.0, pair.1) }
        for row in rows {
            let met = row.targeted ? (row.perRecordRatio >= target ? "meets" : "BELOW") + " ≥ \(target)" : "(floor: cheapest check)"
            lines.append("| \(row.algorithm.rawValue) | \(row.records) / \(2 * row.records) | \(seconds(row.batch)) | \(seconds(row.spark)) | "
                         + "\(row.partitions) | \(String(format: "%.2f", row.perRecordRatio)) | \(met) | \(String(format: "%.2f", row.endToEndRatio)) | "
                         + "\(String(format: "%.1f", row.sparkFixedSeconds)) |")
        }
        return lines.joined(separator: "\n")
    }

    private static func timed<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try body()
        return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Runs a process to its end, and fails unless it exits with `status`.
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String], expecting status: Int32) throws {
        let run = try runToEnd(URL(fileURLWithPath: executable), arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        guard run.status == status else {
            throw BenchmarkError("\(URL(fileURLWithPath: executable).lastPathComponent) exited with status \(run.status): \(run.standardError.suffix(2000))")
        }
    }

    private static func runBatch(_ policyRun: URL, _ corpus: Corpus, log: URL, output: URL) throws {
        // Exit 1 is expected: a quarter of each corpus is invalid.
        try run(policyRun.path, ["batch", "--policy", corpus.policyFile.path, "--jobs", "2", "--output", output.path, log.path],
                    environment: ["BENCH_SECRET": corpus.secret ?? ""], expecting: 1)
    }

    /// Runs policy_spark; returns the number of partitions its summary reports.
    private static func runSpark(_ policyRun: URL, _ corpus: Corpus, log: URL, records: Int, package: URL, output: URL) throws -> Int {
        let summaryFile = output.deletingLastPathComponent().appendingPathComponent("spark-summary.json")
        try run("/usr/bin/env", ["python3", "-m", "policy_spark", "--master", "local[2]", "--policy", corpus.policyFile.path,
                                     "--input", log.path, "--output", output.path, "--overwrite", "--policy-run", policyRun.path,
                                     "--conf", "spark.sql.files.maxPartitionBytes=\(partitionBytes)", "--summary-json", summaryFile.path],
                    environment: ["BENCH_SECRET": corpus.secret ?? "", "PYTHONPATH": package.path], expecting: 1)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: summaryFile)) as? [String: Any]
        guard summary?["records"] as? Int == records, let partitions = summary?["partitions"] as? Int else {
            throw BenchmarkError("policy_spark judged \(log.lastPathComponent) unexpectedly: \(summary ?? [:])")
        }
        return partitions
    }
}
