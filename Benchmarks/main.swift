import Foundation

/// `swift run -c release Benchmarks [jose | policy | patterns | batch [SCALE] | instructions [RECORDS] | startup]`: prints a
/// Markdown table of rates and ratios. `batch` and `startup` run the release `policy-run` built beside it
/// (`swift build -c release`).
let arguments = CommandLine.arguments.dropFirst()
let suite = arguments.first ?? "jose"
switch suite {
case "jose":
    print("JOSE benchmark, single core, \(ISO8601DateFormatter().string(from: Date()))")
    print(benchmarkTable(try JOSEBenchmark.run()))
case "policy":
    print("Policy benchmark, single core, \(ISO8601DateFormatter().string(from: Date()))")
    do {
        let result = try PolicyBenchmark.run()
        print(benchmarkTable(result.rows))
        let target = 1000.0
        print("\nCompile after parsing: \(String(format: "%.0f", result.compileMicroseconds)) µs per policy "
              + "(\(result.compileMicroseconds < target ? "meets" : "ABOVE") the < \(Int(target)) µs target)")
    } catch {
        FileHandle.standardError.write(Data("policy benchmark: \(error)\n".utf8))
        exit(1)
    }
case "patterns":
    print("Pattern benchmark (RE2), single core, \(ISO8601DateFormatter().string(from: Date()))")
    do {
        print(benchmarkTable(try PatternBenchmark.run()))
        print("\nFor contrast, a backtracking engine (NSRegularExpression, ICU) on ^(a+)+b$:")
        for (size, seconds) in PatternBenchmark.backtrackingContrast() {
            print("- \(size) a's: \(String(format: "%.4f", seconds)) s per match")
        }
    } catch {
        FileHandle.standardError.write(Data("pattern benchmark: \(error)\n".utf8))
        exit(1)
    }
case "batch":
    let scale = arguments.dropFirst().first.flatMap(Double.init) ?? 1
    print("Batch benchmark, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ISO8601DateFormatter().string(from: Date()))")
    do {
        print(BatchBenchmark.table(try BatchBenchmark.run(scale: scale)))
    } catch {
        FileHandle.standardError.write(Data("batch benchmark: \(error)\n".utf8))
        exit(1)
    }
case "instructions":
    let records = arguments.dropFirst().first.flatMap(Int.init) ?? 1000
    print("Instructions per record (callgrind, batch's per-record path on one thread, \(records) and \(2 * records) records), \(ISO8601DateFormatter().string(from: Date()))")
    do {
        print(InstructionsBenchmark.table(try InstructionsBenchmark.run(records: records)))
    } catch {
        FileHandle.standardError.write(Data("instructions benchmark: \(error)\n".utf8))
        exit(1)
    }
case "startup":
    print("Start-up, 40 runs each, \(ISO8601DateFormatter().string(from: Date()))")
    do {
        print(StartupBenchmark.table(try StartupBenchmark.run()))
    } catch {
        FileHandle.standardError.write(Data("startup benchmark: \(error)\n".utf8))
        exit(1)
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
    FileHandle.standardError.write(Data("unknown benchmark '\(suite)'; available: jose, policy, patterns, batch, instructions, startup\n".utf8))
    exit(2)
}
