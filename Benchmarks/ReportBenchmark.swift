import Foundation

/// `Benchmarks report [RECORDS]`: `policy-run batch --report` over a generated log of a key
/// rotation and a failure spike (Tests/Browser/make_rotation_log.py), the page's size, the time
/// headless Chromium takes to render it (Benchmarks/report-render.py), and what writing the report
/// costs the run, against the same run without it.
enum ReportBenchmark {
    /// Issue 35's targets: a report of a million records under 2 MiB, rendered in under 2 s.
    static let maxBytes = 2 << 20
    static let maxRenderMilliseconds = 2000.0

    struct Result {
        let records: Int
        let bytes: Int
        let loadMilliseconds: Double
        let slowestLoadMilliseconds: Double
        let paintMilliseconds: Double?
        let withReport: Double
        let without: Double
    }

    static func run(records: Int) throws -> Result {
        let policyRun = try builtPolicyRun()
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let generator = root.appendingPathComponent("Tests/Browser/make_rotation_log.py")
        let renderer = root.appendingPathComponent("Benchmarks/report-render.py")
        guard FileManager.default.fileExists(atPath: generator.path), FileManager.default.fileExists(atPath: renderer.path) else {
            throw BenchmarkError("run it from the package root: \(generator.path) or \(renderer.path) is missing")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let made = try runToEnd(python, ["python3", generator.path, folder.path, String(records)])
        guard made.status == 0 else { throw BenchmarkError("make_rotation_log.py failed: \(made.standardError)") }
        let page = folder.appendingPathComponent("report.html")
        func batch(report: Bool) throws -> Double {
            let summary = folder.appendingPathComponent("summary.json")
            let arguments = ["batch", "--policy", folder.appendingPathComponent("policy.yaml").path, "--output", "/dev/null", "--summary-json", summary.path]
                + (report ? ["--report", page.path] : []) + [folder.appendingPathComponent("log.jsonl").path]
            let run = try runToEnd(policyRun, arguments)
            guard run.status == 1 else { throw BenchmarkError("policy-run batch exited \(run.status): \(run.standardError.suffix(2000))") }
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as? [String: Any]
            guard let rate = json?["records_per_second"] as? Int else { throw BenchmarkError("no rate in the summary") }
            return Double(rate)
        }
        // Interleaved, best of three each: the machine's noise is larger than the difference.
        var withReport = 0.0, without = 0.0
        for _ in 0..<3 {
            without = max(without, try batch(report: false))
            withReport = max(withReport, try batch(report: true))
        }
        let bytes = (try FileManager.default.attributesOfItem(atPath: page.path)[.size] as? NSNumber)?.intValue ?? 0
        let rendered = try runCapturingOutput(python, ["python3", renderer.path, page.path, "5"])
        guard rendered.status == 0,
              let timing = try JSONSerialization.jsonObject(with: Data(rendered.standardOutput.utf8)) as? [String: Any],
              let load = timing["load_ms"] as? Double, let slowest = timing["load_ms_max"] as? Double else {
            throw BenchmarkError("report-render.py failed: \(rendered.standardError.suffix(2000))")
        }
        if let errors = timing["errors"] as? [String], !errors.isEmpty { throw BenchmarkError("the page logged errors: \(errors)") }
        return Result(records: records, bytes: bytes, loadMilliseconds: load, slowestLoadMilliseconds: slowest,
                      paintMilliseconds: timing["paint_ms"] as? Double, withReport: withReport, without: without)
    }

    static func table(_ result: Result) -> String {
        let size = result.bytes < maxBytes ? "meets" : "ABOVE"
        let render = result.slowestLoadMilliseconds < maxRenderMilliseconds ? "meets" : "ABOVE"
        return """
        | records | report | target | load event, median (slowest of 5) | first paint | target | batch with --report / without |
        |---:|---:|---|---:|---:|---|---:|
        | \(result.records) | \(result.bytes / 1024) KiB | \(size) < 2 MiB | \(Int(result.loadMilliseconds)) ms (\(Int(result.slowestLoadMilliseconds)) ms) | \
        \(result.paintMilliseconds.map { "\(Int($0)) ms" } ?? "–") | \(render) < 2 s | \(String(format: "%.3f", result.withReport / result.without)) \
        (\(Int(result.withReport)) / \(Int(result.without)) records/s) |
        """
    }
}
