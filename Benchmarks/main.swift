import Foundation

/// `swift run -c release Benchmarks [jose]`: prints a Markdown table of rates and ratios.
let arguments = CommandLine.arguments.dropFirst()
let suite = arguments.first ?? "jose"
switch suite {
case "jose":
    print("JOSE benchmark, single core, \(ISO8601DateFormatter().string(from: Date()))")
    print(JOSEBenchmark.table(try JOSEBenchmark.run()))
default:
    FileHandle.standardError.write(Data("unknown benchmark '\(suite)'; available: jose\n".utf8))
    exit(2)
}
