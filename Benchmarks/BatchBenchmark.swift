import Foundation
import PolicyRuntime
import PolicyJOSE

/// `Benchmarks batch`: `policy-run batch` over generated token logs, against the raw primitive
/// rate and a PyJWT loop doing the same checks, all measured in the same run.
enum BatchBenchmark {
    struct Case {
        let algorithm: JWSAlgorithm
        let records: Int
        /// The raw primitive's reference, and our 1-job target as a share of it.
        let reference: String
        let target: Double
    }

    /// The one-job targets are issue 34's (RS256 ≥ 0.80 of `openssl speed rsa2048`, ES256 and
    /// EdDSA ≥ 0.90 of theirs, HS256 ≥ 0.15 of the HMAC loop; PS256 held to RS256's).
    static func cases(scale: Double) -> [Case] {
        [
            Case(algorithm: .rs256, records: Int(20_000 * scale), reference: "rsa2048", target: 0.8),
            Case(algorithm: .ps256, records: Int(20_000 * scale), reference: "rsa2048", target: 0.8),
            Case(algorithm: .es256, records: Int(20_000 * scale), reference: "ecdsap256", target: 0.9),
            Case(algorithm: .eddsa, records: Int(20_000 * scale), reference: "libsodium", target: 0.9),
            Case(algorithm: .hs256, records: Int(200_000 * scale), reference: "hmac", target: 0.15),
        ]
    }

    /// One line of the results table.
    struct Row {
        let algorithm: JWSAlgorithm
        let corpus: String
        let jobs: Int
        let records: Int
        let rate: Double
        let comparedTo: String
        let ratio: Double
        let target: String
        let rssMiB: Double
        let pyJWT: Double?
    }

    static let issuer = "https://issuer.example"
    static let audience = "api://bench"
    static let now = 1_795_253_400

    /// The rows, and notes for the table (a peer that could not be built).
    static func run(scale: Double) throws -> (rows: [Row], notes: [String]) {
        let policyRun = try builtPolicyRun()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let peer = JsonwebtokenPeer.build()
        if case let .failure(reason) = peer {
            FileHandle.standardError.write(Data("jsonwebtoken peer skipped: \(reason)\n".utf8))
        }
        var rows: [Row] = []
        for benchCase in cases(scale: scale) {
            let corpus = try Corpus(benchCase, in: folder)
            FileHandle.standardError.write(Data("\(benchCase.algorithm.rawValue): \(benchCase.records) records generated\n".utf8))
            let primitive = referenceRate(benchCase, message: corpus.signingInput)
            let pyJWT = PyJWTLoop.rate(corpus: corpus)
            let rounds = try (0..<3).map { _ in try Round(policyRun, corpus, cores: cores) }
            let unique1 = best(rounds.map(\.unique1)), uniqueAll = best(rounds.map(\.uniqueAll)), repeated1 = best(rounds.map(\.repeated1))
            let name = benchCase.reference == "hmac" ? "OpenSSL HMAC loop" : benchCase.reference == "libsodium" ? "libsodium verify loop" : "openssl speed \(benchCase.reference)"
            rows.append(Row(algorithm: benchCase.algorithm, corpus: "unique", jobs: 1, records: benchCase.records, rate: unique1.rate,
                            comparedTo: name, ratio: unique1.rate / primitive, target: "≥ \(benchCase.target)", rssMiB: unique1.rssMiB, pyJWT: pyJWT))
            rows.append(Row(algorithm: benchCase.algorithm, corpus: "unique", jobs: cores, records: benchCase.records, rate: uniqueAll.rate,
                            comparedTo: "ours, 1 job", ratio: median(rounds.map { $0.uniqueAll.rate / $0.unique1.rate }), target: cores >= 2 ? "≥ 1.85" : "", rssMiB: uniqueAll.rssMiB,
                            pyJWT: pyJWT))
            rows.append(Row(algorithm: benchCase.algorithm, corpus: "×10 repeats", jobs: 1, records: benchCase.records, rate: repeated1.rate,
                            comparedTo: "ours, unique, 1 job", ratio: median(rounds.map { $0.repeated1.rate / $0.unique1.rate }), target: "≥ 5", rssMiB: repeated1.rssMiB, pyJWT: nil))
            if case let .success(peer) = peer {
                let whole = try JsonwebtokenPeer.rates(policyRun, peer, corpus)
                rows.append(Row(algorithm: benchCase.algorithm, corpus: "unique, whole process", jobs: 1, records: benchCase.records, rate: whole.ours,
                                comparedTo: "jsonwebtoken (Rust, ring) \(Int(whole.peer))/s", ratio: whole.ours / whole.peer,
                                target: benchCase.algorithm == .eddsa ? "≥ 1.0" : "≥ 1.1", rssMiB: unique1.rssMiB, pyJWT: nil))
            }
        }
        let notes = if case let .failure(reason) = peer { ["The jsonwebtoken rows are skipped: \(reason)"] } else { [String]() }
        return (rows, notes)
    }

    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| alg | corpus | jobs | records | tokens/s | compared to | ratio | target | PyJWT tokens/s | ours / PyJWT | max RSS |",
            "|---|---|---:|---:|---:|---|---:|---|---:|---:|---:|",
        ]
        for row in rows {
            let met = row.target.isEmpty ? "" : (row.ratio >= Double(row.target.dropFirst(2))! ? "meets " : "BELOW ") + row.target
            let py = row.pyJWT.map { (String(Int($0)), String(format: "%.1f", row.rate / $0)) } ?? ("", "")
            lines.append("| \(row.algorithm.rawValue) | \(row.corpus) | \(row.jobs) | \(row.records) | \(Int(row.rate)) | \(row.comparedTo) | "
                         + "\(String(format: "%.2f", row.ratio)) | \(met) | \(py.0) | \(py.1) | \(String(format: "%.0f", row.rssMiB)) MiB |")
        }
        return lines.joined(separator: "\n")
    }

    private static func referenceRate(_ benchCase: Case, message: [UInt8]) -> Double {
        switch benchCase.reference {
        case "hmac": ReferenceRates.opensslHMACSHA256(message: message)
        case "libsodium": ReferenceRates.sodiumEd25519Verify(message: message)
        default: ReferenceRates.opensslSpeedVerify(benchCase.reference, seconds: 2) ?? .nan
        }
    }

    /// The three runs one round of a case makes back to back: one job and every core over the
    /// unique log, one job over the ×10 log. Our ratios between them are taken within a round
    /// and the median of three rounds reported: these machines drift by more than the
    /// differences measured within seconds, and rounds taken in turn see the same drift on both
    /// sides of a ratio, where the best of three runs of each, taken one after the other, did not.
    private struct Round {
        let unique1: (rate: Double, rssMiB: Double)
        let uniqueAll: (rate: Double, rssMiB: Double)
        let repeated1: (rate: Double, rssMiB: Double)

        init(_ policyRun: URL, _ corpus: Corpus, cores: Int) throws {
            unique1 = try runBatchOnce(policyRun, corpus, file: corpus.uniqueFile, jobs: 1)
            uniqueAll = try runBatchOnce(policyRun, corpus, file: corpus.uniqueFile, jobs: cores)
            repeated1 = try runBatchOnce(policyRun, corpus, file: corpus.repeatedFile, jobs: 1)
        }
    }

    /// The best rate of `runs` and their largest peak RSS: what a row shows and what the
    /// primitive's ratio is taken from (a single run moves by more than the differences measured).
    private static func best(_ runs: [(rate: Double, rssMiB: Double)]) -> (rate: Double, rssMiB: Double) {
        (runs.map(\.rate).max()!, runs.map(\.rssMiB).max()!)
    }

    /// One run: the records per second its summary reports (the time from the first record read
    /// to the last verdict written; process start-up and policy compilation, a few milliseconds
    /// that a log of millions of records amortises, are left out) and its peak RSS.
    private static func runBatchOnce(_ policyRun: URL, _ corpus: Corpus, file: URL, jobs: Int) throws -> (rate: Double, rssMiB: Double) {
        let summaryFile = file.deletingPathExtension().appendingPathExtension("summary-\(jobs).json")
        let run = try runToEnd(policyRun, ["batch", "--policy", corpus.policyFile.path, "--jobs", String(jobs), "--output", "/dev/null",
                                           "--summary-json", summaryFile.path, file.path],
                               environment: ["BENCH_SECRET": corpus.secret ?? ""])
        // Exit 1 is expected: a quarter of each corpus is invalid.
        guard run.status == 1 else {
            throw BenchmarkError("policy-run batch exited with status \(run.status) on \(file.lastPathComponent): \(run.standardError.suffix(2000))")
        }
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: summaryFile)) as? [String: Any]
        let invalid = Double(summary?["invalid"] as? Int ?? 0) / Double(corpus.records)
        guard summary?["records"] as? Int == corpus.records, (0.23...0.27).contains(invalid) else {
            throw BenchmarkError("policy-run batch judged \(file.lastPathComponent) unexpectedly: \(summary ?? [:])")
        }
        guard let seconds = summary?["seconds"] as? Double, seconds > 0 else {
            throw BenchmarkError("policy-run batch reported no duration for \(file.lastPathComponent)")
        }
        return (Double(corpus.records) / seconds, Double(summary?["max_rss_bytes"] as? Int ?? 0) / 1_048_576)
    }
}

/// A generated log for one algorithm: a policy, its key, and two corpora of JSON lines — every
/// token unique, and each token repeated ten times. Three in four records are valid; the rest
/// are expired, for another audience, from another issuer, or signed by another key.
struct Corpus {
    let records: Int
    let algorithm: JWSAlgorithm
    let policyFile: URL
    let uniqueFile: URL
    let repeatedFile: URL
    /// The unique corpus's valid records alone, for counting what a valid record costs.
    let validFile: URL
    /// One valid token in every record, each a second later (within its lifetime): a verdict reused record after record.
    let oneTokenFile: URL
    /// Every log written, for a caller that keeps only the one it needs.
    var logFiles: [URL] { [uniqueFile, repeatedFile, validFile, oneTokenFile] }
    /// The JWKS (or, for HS256, the secret) PyJWT verifies with.
    let jwksFile: URL
    let secret: String?
    /// A typical signing input, for the primitive reference loops.
    let signingInput: [UInt8]

    init(_ benchCase: BatchBenchmark.Case, in folder: URL) throws {
        let records = benchCase.records, algorithm = benchCase.algorithm
        self.records = records
        self.algorithm = algorithm
        let name = algorithm.rawValue.lowercased()
        let key = try JWK.generate(for: algorithm, kid: "bench")
        let stranger = try JWK.generate(for: algorithm, kid: "bench")
        let jwksFile = folder.appendingPathComponent("\(name).jwks.json")
        self.jwksFile = jwksFile
        policyFile = folder.appendingPathComponent("\(name).yaml")
        if algorithm == .hs256 {
            secret = Base64URL.encode(key.secretBytes!)
            try "{}".write(to: jwksFile, atomically: true, encoding: .utf8)
        } else {
            secret = nil
            let jwks = JSONValue.object(JSONObject(["keys": .array([.object(try key.publicKey.publicJSON())])]))
            try Data(jwks.serializedBytes()).write(to: jwksFile)
        }
        let keys = algorithm == .hs256 ? "{secret: '${env:BENCH_SECRET}'}" : "{jwks_file: \(jwksFile.lastPathComponent)}"
        try """
        policy: bench-\(name)
        token:
          algorithms: [\(algorithm.rawValue)]
          keys: \(keys)
          issuer: \(BatchBenchmark.issuer)
          audience: \(BatchBenchmark.audience)
          leeway: 0
        """.write(to: policyFile, atomically: true, encoding: .utf8)

        func token(_ index: Int) throws -> String {
            var claims = JSONObject([
                "iss": .string(BatchBenchmark.issuer), "sub": .string("user-\(index % 977)"), "aud": .string(BatchBenchmark.audience),
                "iat": .number(.integer(Int64(BatchBenchmark.now - 600))), "exp": .number(.integer(Int64(BatchBenchmark.now + 3000))),
                "jti": .string("jti-\(index)"), "scope": .string("openid profile orders:read"),
            ])
            var signer = key
            switch index % 16 {
            case 12: claims.set("exp", .number(.integer(Int64(BatchBenchmark.now - 60))))
            case 13: claims.set("aud", .string("api://other"))
            case 14: claims.set("iss", .string("https://evil.example"))
            case 15: signer = stranger
            default: break
            }
            return try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), header: JSONObject(["typ": .string("JWT"), "kid": .string("bench")]),
                                       algorithm: algorithm, key: signer)
        }
        func line(_ token: String, at time: Int = BatchBenchmark.now) -> String { "{\"token\":\"\(token)\",\"ts\":\(time)}\n" }
        let uniqueFile = folder.appendingPathComponent("\(name)-unique.jsonl")
        let repeatedFile = folder.appendingPathComponent("\(name)-repeated.jsonl")
        let validFile = folder.appendingPathComponent("\(name)-valid.jsonl")
        self.uniqueFile = uniqueFile
        self.repeatedFile = repeatedFile
        self.validFile = validFile
        oneTokenFile = folder.appendingPathComponent("\(name)-one-token.jsonl")
        var unique = "", repeated = "", valid = "", oneToken = ""
        unique.reserveCapacity(records * 700)
        let distinct = max(1, records / 10)
        var tokens: [String] = []
        tokens.reserveCapacity(distinct)
        for index in 0..<records {
            let text = try token(index)
            unique += line(text)
            if index % 16 < 12 { valid += line(text) }
            if index < distinct { tokens.append(text) }
        }
        // Each pass over the distinct tokens is a second later, as in a log: a verdict that
        // quotes its time (an expired token's) is judged again, one that holds until exp is reused.
        for index in 0..<records { repeated += line(tokens[index % distinct], at: BatchBenchmark.now + index / distinct) }
        for index in 0..<records { oneToken += line(tokens[0], at: BatchBenchmark.now + index % 1000) }
        try unique.write(to: uniqueFile, atomically: false, encoding: .utf8)
        try repeated.write(to: repeatedFile, atomically: false, encoding: .utf8)
        try valid.write(to: validFile, atomically: false, encoding: .utf8)
        try oneToken.write(to: oneTokenFile, atomically: false, encoding: .utf8)
        signingInput = Array(try CompactJWS(tokens[0]).signingInput)
    }
}

/// PyJWT (apt `python3-jwt`) doing the same checks over the unique corpus: signature, issuer,
/// audience, and expiry at the record's time (PyJWT checks `exp` against the wall clock, so the
/// loop compares it to the record's `ts` itself).
enum PyJWTLoop {
    static let script = """
    import json, sys, time, jwt
    from jwt import PyJWK
    alg, corpus, jwks, secret = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    key = secret and __import__("base64").urlsafe_b64decode(secret + "=" * (-len(secret) % 4)) or PyJWK(json.load(open(jwks))["keys"][0], algorithm=alg).key
    records = [json.loads(line) for line in open(corpus)]
    valid = 0
    start = time.perf_counter()
    for record in records:
        try:
            claims = jwt.decode(record["token"], key, algorithms=[alg], audience="\(BatchBenchmark.audience)", issuer="\(BatchBenchmark.issuer)",
                                options={"verify_exp": False, "verify_iat": False})
            if claims["exp"] > record["ts"]:
                valid += 1
        except jwt.PyJWTError:
            pass
    elapsed = time.perf_counter() - start
    print(len(records) / elapsed, valid)
    """

    /// Tokens per second, or nil when python3 or PyJWT is missing.
    static func rate(corpus: Corpus) -> Double? {
        let algorithm = corpus.algorithm == .eddsa ? "EdDSA" : corpus.algorithm.rawValue
        let output = commandOutput(["/usr/bin/python3", "-c", script, algorithm, corpus.uniqueFile.path, corpus.jwksFile.path, corpus.secret ?? ""])
        return output?.split(separator: " ").first.flatMap { Double($0) }
    }
}
