import Foundation
import PolicyJOSE
import PolicyRuntime

/// Rust's `jsonwebtoken` crate (8.2 on ring 0.16, Debian's) judging the same corpus as
/// `policy-run batch --jobs 1`: the fastest peer measured (issue 37). Built offline from Debian's
/// crate sources by `Benchmarks/peers/jsonwebtoken/build.sh`, which installs cargo and the crates
/// when they are missing; where that cannot be done the row is skipped with the reason.
///
/// Both programs are timed whole, from start to exit (start-up and reading the log included, as
/// a user running either would wait), five times each in turn, and the medians compared. Every
/// record's verdict from each is checked against the corpus's labels, so no row is fast by
/// skipping work.
enum JsonwebtokenPeer {
    /// The peer's source folder, beside this file.
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("peers/jsonwebtoken")

    /// Builds the peer into the package's `.build/peers` (a no-op when built); the binary, or
    /// the build script's own one-line reason for failing.
    static func build() -> Result<URL, BenchmarkError> {
        let targetDirectory = source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/peers")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [source.appendingPathComponent("build.sh").path, targetDirectory.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return .failure(BenchmarkError("cannot run build.sh: \(error)")) }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let reason = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let path = printed.split(separator: "\n").last else {
            return .failure(BenchmarkError(reason.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return .success(URL(fileURLWithPath: String(path)))
    }

    /// One run of the peer over the unique corpus: its whole-process seconds, its verdicts checked
    /// against the labels.
    static func judge(_ peer: URL, _ corpus: Corpus) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let run = try runCapturingOutput(peer, [name(of: corpus.algorithm), corpus.uniqueFile.path, corpus.jwksFile.path, corpus.secret ?? "",
                                                BatchBenchmark.issuer, BatchBenchmark.audience])
        let seconds = (clock.now - start).seconds
        let lines = run.standardOutput.split(separator: "\n")
        guard run.status == 0, lines.count == 2 else {
            throw BenchmarkError("jsonwebtoken-peer failed on \(corpus.uniqueFile.lastPathComponent) (status \(run.status)): \(run.standardError.suffix(2000))")
        }
        try checkVerdicts(lines[1].map { $0 == "1" }, of: corpus, judge: "jsonwebtoken")
        return seconds
    }

    /// The algorithms the peer verifies.
    static let algorithms: [JWSAlgorithm] = [.rs256, .ps256, .es256, .eddsa, .hs256]

    /// `algorithm` as the peer's ALG argument names it.
    private static func name(of algorithm: JWSAlgorithm) -> String {
        algorithm == .eddsa ? "EdDSA" : algorithm.rawValue
    }

    /// The peer's signature verification alone (`--primitive`: the crate's `crypto::verify`, ring
    /// underneath) on `tokens` in turn, whose key is in `jwks` (a file) or, for HS256, is
    /// `secret` (base64url): verifies per second. The peer checks each token verifies and a
    /// flipped bit does not first.
    static func primitiveRate(_ peer: URL, algorithm: JWSAlgorithm, tokens: [String], jwks: URL, secret: String) throws -> Double {
        let run = try runCapturingOutput(peer, ["--primitive", name(of: algorithm), tokens.joined(separator: ","), jwks.path, secret])
        guard run.status == 0, let rate = Double(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), rate > 0 else {
            throw BenchmarkError("jsonwebtoken-peer --primitive \(algorithm.rawValue) failed (status \(run.status)): \(run.standardError.suffix(500))")
        }
        return rate
    }

    /// `policy-run batch --jobs 1` over the unique corpus, its verdict lines written to
    /// `output`, timed whole: its seconds.
    static func judgeOurs(_ policyRun: URL, _ corpus: Corpus, output: String = "/dev/null") throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let run = try runToEnd(policyRun, ["batch", "--policy", corpus.policyFile.path, "--jobs", "1", "--output", output, corpus.uniqueFile.path],
                               environment: ["BENCH_SECRET": corpus.secret ?? ""])
        let seconds = (clock.now - start).seconds
        guard run.status == 1 else {
            throw BenchmarkError("policy-run batch exited with status \(run.status): \(run.standardError.suffix(2000))")
        }
        return seconds
    }

    /// Our verdicts on the unique corpus, record by record, checked against the labels (one run
    /// writing its verdict lines, outside the timed ones, which write to /dev/null).
    static func checkOurVerdicts(_ policyRun: URL, _ corpus: Corpus) throws {
        let verdictFile = corpus.uniqueFile.deletingPathExtension().appendingPathExtension("verdicts.jsonl")
        defer { try? FileManager.default.removeItem(at: verdictFile) }
        _ = try judgeOurs(policyRun, corpus, output: verdictFile.path)
        var verdicts = [Bool](repeating: false, count: corpus.records)
        var seen = 0
        for line in try String(contentsOf: verdictFile, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let number = object["line"] as? Int, let valid = object["valid"] as? Bool, (1...corpus.records).contains(number) else {
                throw BenchmarkError("an unreadable verdict line from policy-run batch: \(line.prefix(200))")
            }
            verdicts[number - 1] = valid
            seen += 1
        }
        guard seen == corpus.records else { throw BenchmarkError("policy-run batch wrote \(seen) verdicts for \(corpus.records) records") }
        try checkVerdicts(verdicts, of: corpus, judge: "policy-run batch")
    }

    /// Every record valid exactly where the corpus made it so (three in four: index % 16 < 12).
    private static func checkVerdicts(_ verdicts: [Bool], of corpus: Corpus, judge: String) throws {
        guard verdicts.count == corpus.records else {
            throw BenchmarkError("\(judge) gave \(verdicts.count) verdicts for \(corpus.records) records")
        }
        if let wrong = verdicts.indices.first(where: { verdicts[$0] != ($0 % 16 < 12) }) {
            throw BenchmarkError("\(judge) judged record \(wrong + 1) of \(corpus.uniqueFile.lastPathComponent) \(verdicts[wrong] ? "valid" : "invalid"), "
                                 + "which the corpus made \(wrong % 16 < 12 ? "valid" : "invalid")")
        }
    }

    /// Medians of five runs of each, in turn: (ours, peer) records per second, whole process.
    static func rates(_ policyRun: URL, _ peer: URL, _ corpus: Corpus) throws -> (ours: Double, peer: Double) {
        try checkOurVerdicts(policyRun, corpus)
        var ours: [Double] = [], theirs: [Double] = []
        for _ in 0..<5 {
            ours.append(try judgeOurs(policyRun, corpus))
            theirs.append(try judge(peer, corpus))
        }
        return (Double(corpus.records) / median(ours), Double(corpus.records) / median(theirs))
    }
}
