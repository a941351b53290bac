import Foundation
import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules
import Synchronization

/// `Benchmarks cache`: `policy-run batch` over logs of 1,000, 8,000, 20,000 and 200,000 distinct
/// RS256 access tokens, each presented five times in turn (token i at records i, i + N,
/// i + 2N, …: every token comes back after all the others, the order in which a cache smaller
/// than N that evicts by recency answers nothing), with the default cache, a 16 MiB one and
/// none, all in the same run; then, in this process, the cache's own count of its memory
/// against the growth of resident memory.
enum CacheBenchmark {
    static let standardCounts = [1_000, 8_000, 20_000, 200_000]
    static let presentations = 5
    /// The cache settings compared, as `policy-run batch` takes them.
    static let settings: [(name: String, arguments: [String])] = [
        ("64 MiB (default)", []), ("16 MiB", ["--cache-size", "16MiB"]), ("none", ["--no-cache"]),
    ]
    static let issuer = "https://issuer.example"
    static let audience = "api://bench"
    static let now = 1_795_253_400

    /// One line of the results table.
    struct Row {
        let distinct: Int
        let cache: String
        /// Nil when the `policy-run` measured does not take the setting (a build from before it).
        let rate: Double?
        let uncachedRate: Double?
        let hitRate: Double?
        let evictions: Int?
        let rssMiB: Double?
    }

    /// Runs the logs of `distinctCounts` distinct tokens (the standard four unless given).
    static func run(distinctCounts: [Int] = standardCounts) throws -> (rows: [Row], memory: [String]) {
        let policyRun = try builtPolicyRun()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try JWK.generate(for: .rs256, kid: "bench")
        let policyFile = folder.appendingPathComponent("cache-bench.yaml")
        let jwks = JSONValue.object(JSONObject(["keys": .array([.object(try key.publicKey.publicJSON())])]))
        try Data(jwks.serializedBytes()).write(to: folder.appendingPathComponent("jwks.json"))
        let policyText = """
        policy: cache-bench
        token:
          algorithms: [RS256]
          keys: {jwks_file: jwks.json}
          issuer: \(issuer)
          audience: \(audience)
        """
        try policyText.write(to: policyFile, atomically: true, encoding: .utf8)
        let tokens = try mint(distinctCounts.max()!, key: key)
        FileHandle.standardError.write(Data("\(tokens.count) RS256 tokens minted\n".utf8))

        var rows: [Row] = []
        for distinct in distinctCounts {
            let log = folder.appendingPathComponent("log-\(distinct).jsonl")
            var text = ""
            text.reserveCapacity(distinct * presentations * (tokens[0].utf8.count + 32))
            for _ in 0..<presentations {
                for token in tokens.prefix(distinct) { text += "{\"token\":\"\(token)\",\"ts\":\(now)}\n" }
            }
            try text.write(to: log, atomically: false, encoding: .utf8)
            let measured = try settings.map { setting in try best(policyRun, policyFile, log, setting.arguments, records: distinct * presentations) }
            let uncached = measured.last!?.rate
            for (setting, run) in zip(settings, measured) {
                rows.append(Row(distinct: distinct, cache: setting.name, rate: run?.rate, uncachedRate: uncached, hitRate: run?.hitRate,
                                evictions: run?.evictions, rssMiB: run?.rssMiB))
            }
            try? FileManager.default.removeItem(at: log)
        }
        let policy = try Policy.load(text: policyText, file: policyFile.path, environment: [:])
        return (rows, try memory(tokens: tokens, policy: policy))
    }

    /// `count` distinct access tokens of about 750 bytes, signed on every core.
    static func mint(_ count: Int, key: JWK) throws -> [String] {
        let header = JSONObject(["typ": .string("at+jwt"), "kid": .string("bench")])
        let minted = Mutex<[Int: String]>([:])
        let cores = ProcessInfo.processInfo.activeProcessorCount
        DispatchQueue.concurrentPerform(iterations: cores) { part in
            var mine: [Int: String] = [:]
            for index in stride(from: part, to: count, by: cores) {
                let claims = JSONObject([
                    "iss": .string(issuer), "sub": .string("user-\(index)"), "aud": .string(audience), "client_id": .string("s6BhdRkqt3"),
                    "scope": .string("openid profile orders:read orders:write"), "jti": .string("jti-\(index)-\(UUID().uuidString)"),
                    "iat": .number(.integer(Int64(now - 600))), "exp": .number(.integer(Int64(now + 3000))),
                ])
                mine[index] = try? CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), header: header, algorithm: .rs256, key: key)
            }
            minted.withLock { $0.merge(mine) { first, _ in first } }
        }
        let all = minted.withLock { $0 }
        guard all.count == count else { throw BenchmarkError("minting failed for \(count - all.count) tokens") }
        return (0..<count).map { all[$0]! }
    }

    /// The best rate of three runs of `policy-run batch` with `arguments`, the hit rate and
    /// evictions its summary reports, and the largest peak RSS; nil when this `policy-run` does
    /// not take `arguments`.
    private static func best(_ policyRun: URL, _ policy: URL, _ log: URL, _ arguments: [String], records: Int) throws
        -> (rate: Double, hitRate: Double?, evictions: Int?, rssMiB: Double)? {
        var runs: [(rate: Double, hitRate: Double?, evictions: Int?, rssMiB: Double)] = []
        for attempt in 0..<3 {
            let summaryFile = log.deletingPathExtension().appendingPathExtension("summary-\(attempt).json")
            let run = try runToEnd(policyRun, ["batch", "--policy", policy.path, "--output", "/dev/null", "--summary-json", summaryFile.path]
                + arguments + [log.path])
            if run.status == 2, run.standardError.contains("Unknown option") { return nil }
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: summaryFile)) as? [String: Any]
            guard run.status == 0, summary?["records"] as? Int == records, summary?["valid"] as? Int == records,
                  let seconds = summary?["seconds"] as? Double, seconds > 0 else {
                throw BenchmarkError("policy-run batch \(arguments) on \(log.lastPathComponent): status \(run.status), \(summary ?? [:]) \(run.standardError.suffix(2000))")
            }
            let cache = summary?["signature_cache"] as? [String: Any]
            let hits = cache?["hits"] as? Int, misses = cache?["misses"] as? Int
            runs.append((Double(records) / seconds, hits.flatMap { hits in misses.map { Double(hits) / Double(max(1, hits + $0)) } },
                         cache?["evictions"] as? Int, Double(summary?["max_rss_bytes"] as? Int ?? 0) / 1_048_576))
        }
        let fastest = runs.max { $0.rate < $1.rate }!
        return (fastest.rate, fastest.hitRate, fastest.evictions, runs.map(\.rssMiB).max()!)
    }

    /// Two passes over the first 2,000 tokens, then 20,000, then all of them, through one cache
    /// of the default size in this process: what the cache says it takes against the growth of
    /// resident memory (an upper bound: it counts the evaluations' own garbage malloc kept).
    static func memory(tokens: [String], policy: Policy) throws -> [String] {
        let cache = SignatureCache()
        let before = residentBytes()
        var lines: [String] = []
        for count in [2_000, 20_000, tokens.count] {
            for _ in 0..<2 {
                for token in tokens.prefix(count) {
                    guard try policy.evaluateNow(token: token, now: UnixTime(seconds: Double(now)), signatureCache: cache).valid else {
                        throw BenchmarkError("a minted token was refused")
                    }
                }
            }
            let grown = Double(residentBytes() - before) / 1_048_576
            lines.append("- \(count) tokens, twice: \(cache.count) checks and some decoded tokens held, \(String(format: "%.1f", Double(cache.memoryUsed) / 1_048_576)) MiB "
                         + "by the cache's count (limit \(cache.memoryLimit >> 20) MiB), resident memory grew \(String(format: "%.1f", grown)) MiB; "
                         + "hit rate \(String(format: "%.3f", cache.statistics.hitRate ?? 0)), \(cache.statistics.evictions) evicted")
        }
        return lines
    }

    /// The process's resident memory (`VmRSS` of /proc/self/status), in bytes.
    private static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }

    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| distinct tokens × 5 | records | cache | tokens/s | / no cache | signature hit rate | evicted | max RSS |",
            "|---:|---:|---|---:|---:|---:|---:|---:|",
        ]
        for row in rows {
            guard let rate = row.rate else {
                lines.append("| \(row.distinct) | \(row.distinct * presentations) | \(row.cache) | (not taken by this policy-run) | | | | |")
                continue
            }
            let ratio = row.uncachedRate.map { String(format: "%.2f", rate / $0) } ?? ""
            lines.append("| \(row.distinct) | \(row.distinct * presentations) | \(row.cache) | \(Int(rate)) | \(ratio) | "
                         + "\(row.hitRate.map { String(format: "%.3f", $0) } ?? "") | \(row.evictions.map(String.init) ?? "") | "
                         + "\(String(format: "%.0f", row.rssMiB ?? 0)) MiB |")
        }
        return lines.joined(separator: "\n")
    }
}
