import Foundation

/// `swift run -c release Benchmarks [jose | policy | patterns | batch [SCALE] | cache [DISTINCT...] | instructions [RECORDS] | primitives | startup | spark [RECORDS] | dpop | report [RECORDS]]`:
/// prints a Markdown table of rates and ratios. `batch`, `cache`, `startup`, `spark` and `report` run the release `policy-run` built
/// beside it (`swift build -c release`), or the one `POLICY_RUN` names.
let arguments = CommandLine.arguments.dropFirst()
let suite = arguments.first ?? "jose"
let started = ISO8601DateFormatter().string(from: Date())

/// Runs one benchmark: prints `heading`, then what `body` prints; a failure is reported as
/// `NAME benchmark: ERROR` and ends the process with status 1.
func benchmark(_ name: String, _ heading: String, _ body: () throws -> Void) {
    print(heading)
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("\(name) benchmark: \(error)\n".utf8))
        exit(1)
    }
}

switch suite {
case "jose":
    benchmark("jose", "JOSE benchmark, single core, \(started)") { print(benchmarkTable(try JOSEBenchmark.run())) }
case "policy":
    benchmark("policy", "Policy benchmark, single core, \(started)") {
        let result = try PolicyBenchmark.run()
        print(benchmarkTable(result.rows))
        let target = 1000.0
        print("\nCompile after parsing: \(String(format: "%.0f", result.compileMicroseconds)) µs per policy "
              + "(\(result.compileMicroseconds < target ? "meets" : "ABOVE") the < \(Int(target)) µs target)")
    }
case "patterns":
    benchmark("pattern", "Pattern benchmark (RE2), single core, \(started)") {
        print(benchmarkTable(try PatternBenchmark.run()))
        print("\nFor contrast, a backtracking engine (NSRegularExpression, ICU) on ^(a+)+b$:")
        for (size, seconds) in PatternBenchmark.backtrackingContrast() {
            print("- \(size) a's: \(String(format: "%.4f", seconds)) s per match")
        }
    }
case "batch":
    let scale = arguments.dropFirst().first.flatMap(Double.init) ?? 1
    benchmark("batch", "Batch benchmark, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(started)") {
        let result = try BatchBenchmark.run(scale: scale)
        print(BatchBenchmark.table(result.rows))
        print("\nRates are the best of three runs; a ratio to our own one-job rate is the median of three rounds, each run in turn.")
        if !result.notes.isEmpty { print("\n" + result.notes.joined(separator: "\n")) }
    }
case "cache":
    benchmark("cache", "Cache benchmark: policy-run batch, RS256 tokens presented 5 times in turn, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(started)") {
        let counts = arguments.dropFirst().compactMap { Int($0) }
        let result = try CacheBenchmark.run(distinctCounts: counts.isEmpty ? CacheBenchmark.standardCounts : counts)
        print(CacheBenchmark.table(result.rows))
        print("\nThe cache's count of its memory against resident memory (this process, the default cache):")
        print(result.memory.joined(separator: "\n"))
    }
case "instructions":
    let records = arguments.dropFirst().first.flatMap(Int.init) ?? 1000
    benchmark("instructions", "Instructions per record (callgrind, batch's per-record path on one thread, \(records) and \(2 * records) records), \(started)") {
        print(InstructionsBenchmark.table(try InstructionsBenchmark.run(records: records)))
    }
case "spark":
    let records = arguments.dropFirst().first.flatMap(Int.init) ?? 500_000
    benchmark("spark", "Spark benchmark: policy_spark on local[2] against policy-run batch --jobs 2, \(started)") {
        print(SparkBenchmark.table(try SparkBenchmark.run(records: records)))
    }
case "dpop":
    print("DPoP and replay-store benchmark: decisions through the evaluation forward auth runs, one core, \(started)")
    do {
        print(benchmarkTable(try await DPoPBenchmark.run()))
    } catch {
        FileHandle.standardError.write(Data("dpop benchmark: \(error)\n".utf8))
        exit(1)
    }
case "primitives":
    benchmark("primitives", "Signature verification alone, one thread, a JWS signing input of each algorithm, \(started)") {
        let (rows, notes) = try PrimitivesBenchmark.run()
        print(([PrimitivesBenchmark.table(rows)] + notes).joined(separator: "\n"))
    }
case "startup":
    benchmark("startup", "Start-up, 40 runs each, \(started)") { print(StartupBenchmark.table(try StartupBenchmark.run())) }
case "report":
    let records = arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
    benchmark("report", "HTML report: policy-run batch --report over a generated log, rendered by headless Chromium, \(started)") {
        print(ReportBenchmark.table(try ReportBenchmark.run(records: records)))
    }
case "records":
    // Used by `instructions`, under callgrind: judges the records of a file on this thread.
    let paths = Array(arguments.dropFirst())
    guard paths.count == 2 else {
        FileHandle.standardError.write(Data("usage: Benchmarks records POLICY FILE\n".utf8))
        exit(2)
    }
    do {
        try InstructionsBenchmark.judgeRecords(policyFile: paths[0], file: paths[1])
    } catch {
        FileHandle.standardError.write(Data("records: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data("unknown benchmark '\(suite)'; available: jose, policy, patterns, batch, cache, instructions, primitives, startup, spark, dpop, report\n".utf8))
    exit(2)
}
