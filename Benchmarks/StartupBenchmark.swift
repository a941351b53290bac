import Foundation

/// `Benchmarks startup`: the wall time of `policy-run check` on one token, process start
/// included, beside the start of a small C tool on the same libraries (`openssl version`) in the
/// same run.
///
/// Start-up is mostly the dynamic loader's and the Swift runtime's work, so it is measured as
/// processes, 40 runs each, by median; run it from the package root after `swift build -c release`.
enum StartupBenchmark {
    /// One command's start-to-exit times.
    struct Row {
        let name: String
        let milliseconds: [Double]

        var median: Double { milliseconds.sorted()[milliseconds.count / 2] }
        var fastest: Double { milliseconds.min() ?? 0 }
    }

    /// The issue 17 target for `check` end to end, in milliseconds.
    static let targetMilliseconds = 20.0

    static func run(runs: Int = 40) throws -> [Row] {
        let policyRun = try builtPolicyRun()
        guard FileManager.default.fileExists(atPath: "Policies/okta-id-token.yaml") else {
            throw BenchmarkError("run from the package root: Policies/okta-id-token.yaml is not here")
        }
        let check = ["check", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n-0S6_WzA2Mj", "--now", "2026-11-21T09:30:00Z",
                     "@Policies/examples/sample-id-token.jwt"]
        return [
            Row(name: "policy-run check (one RS256 ID token)", milliseconds: try times(policyRun.path, check, runs: runs)),
            Row(name: "policy-run --version", milliseconds: try times(policyRun.path, ["--version"], runs: runs)),
            Row(name: "openssl version (reference)", milliseconds: try times("/usr/bin/openssl", ["version"], runs: runs)),
        ]
    }

    /// Runs `path arguments` `runs` times (after one unmeasured run), each to its exit status 0.
    ///
    /// `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose `waitUntilExit`
    /// polls its run loop every 50 ms.
    static func times(_ path: String, _ arguments: [String], runs: Int) throws -> [Double] {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var times: [Double] = []
        for run in 0...runs {
            var pid: pid_t = 0
            var status: Int32 = 0
            let start = ContinuousClock.now
            let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
            guard spawned == 0 else { throw BenchmarkError("\(path) could not be started: \(String(cString: strerror(spawned)))") }
            waitpid(pid, &status, 0)
            let elapsed = ContinuousClock.now - start
            guard status == 0 else {
                throw BenchmarkError("\(path) \(arguments.joined(separator: " ")) ended with wait status \(status)")
            }
            if run > 0 { times.append(elapsed / .milliseconds(1)) }
        }
        return times
    }

    /// The rows as a Markdown table, and the verdict against the target.
    static func table(_ rows: [Row]) -> String {
        var lines = ["| command | median (ms) | fastest (ms) | median / reference |", "|---|---:|---:|---:|"]
        let reference = rows.last!.median
        for row in rows {
            lines.append("| \(row.name) | \(String(format: "%.1f", row.median)) | \(String(format: "%.1f", row.fastest)) | \(String(format: "%.2f", row.median / reference)) |")
        }
        let check = rows[0].median
        lines.append("")
        lines.append("check end to end: \(String(format: "%.1f", check)) ms median "
                     + "(\(check < targetMilliseconds ? "meets" : "ABOVE") the < \(Int(targetMilliseconds)) ms target)")
        return lines.joined(separator: "\n")
    }
}
