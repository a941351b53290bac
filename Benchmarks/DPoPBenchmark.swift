import Foundation
import Logging
import PolicyAuthoring
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import PolicyReplayPostgres
import Rules

/// What sender-constrained requests cost a decision, in one run: a request with a DPoP proof
/// (RFC 9449: the proof's ES256 signature, its claims, the token's binding, its jti recorded)
/// against the same request with a bearer token, through the evaluation forward auth runs; and
/// what recording the jti in PostgreSQL costs against recording it in memory.
///
/// The PostgreSQL rows need a server: `REPLAY_PG=HOST:PORT:USER:PASSWORD:DATABASE`
/// (Benchmarks/dpop-load.sh starts one); without it they are left out with a line that says so.
enum DPoPBenchmark {
    static let now = UnixTime(seconds: 1_795_253_400)
    static let url = "https://api.example.com/orders/42"

    static func run() async throws -> [BenchmarkRow] {
        let issuer = try JWK.generate(for: .es256, kid: "as-1")
        let client = DPoPProofMinter(key: try JWK.generate(for: .es256), algorithm: .es256)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("issuer.json")
        try Data(JSONValue.object(JSONObject(["keys": .array([.object(try issuer.publicKey.publicJSON())])])).serializedBytes()).write(to: keys)
        func policy(_ request: String) throws -> Policy {
            try Policy.load(text: """
            policy: bench
            token:
              algorithms: [ES256]
              keys: {jwks_file: \(keys.path)}
              issuer: https://auth.example.com
              audience: https://api.example.com
            request:
            \(request)
            """, file: directory.appendingPathComponent("bench.yaml").path, environment: [:], fileRoots: FileRoots([directory.path]))
        }
        let bearerPolicy = try policy("  method: [GET]")
        let dpopPolicy = try policy("  method: [GET]\n  dpop: {algorithms: [ES256], origins: ['https://api.example.com']}")
        let claims = JSONObject(["iss": .string("https://auth.example.com"), "aud": .string("https://api.example.com"), "sub": .string("alice"),
                                 "exp": .number(.integer(Int64(now.seconds) + 3600)),
                                 "cnf": .object(JSONObject(["jkt": .string(try client.thumbprint())]))])
        let token = try CompactJWS.sign(payload: JSONValue.object(claims).serializedBytes(), header: JSONObject(["kid": .string("as-1")]),
                                        algorithm: .es256, key: issuer)
        func request(_ headers: [String: String]) -> RequestSubject {
            RequestSubject(object: JSONObject(["method": .string("GET"), "url": .string(url),
                                               "headers": .object(JSONObject(members: headers.sorted { $0.key < $1.key }.map { JSONMember(name: $0.key, value: .string($0.value)) }))]))
        }
        // Each decision presents a proof of its own, made beforehand: minting is the client's cost.
        let proofs = try (0..<48_000).map { _ in try client.proof(method: "GET", url: url, accessToken: token, issuedAt: now) }
        // The same token bytes: the bearer policy has no dpop rule and does not look at cnf.
        let bearer = request(["Authorization": "Bearer \(token)"])
        func decisionsPerSecond(_ policy: Policy, store: any ReplayStore, subjects: @escaping (Int) -> RequestSubject, count: Int) async throws -> Double {
            let started = ContinuousClock.now
            for index in 0..<count {
                let verdict = try await policy.evaluate(EvaluationRequest(subjects: [subjects(index)], now: now, signatureCache: .shared, replayStore: store)).verdict
                guard verdict.valid else { throw BenchmarkError("decision \(index) was refused: \(verdict.codes)") }
            }
            return Double(count) / (ContinuousClock.now - started).seconds
        }
        var next = 0
        func fresh(_ count: Int) -> [RequestSubject] {
            defer { next += count }
            return proofs[next..<(next + count)].map { request(["Authorization": "DPoP \(token)", "DPoP": $0]) }
        }
        var bearerRate = 0.0, memoryRate = 0.0
        for _ in 0..<3 {
            bearerRate = max(bearerRate, try await decisionsPerSecond(bearerPolicy, store: MemoryReplayStore(), subjects: { _ in bearer }, count: 20_000))
            let batch = fresh(8_000)
            memoryRate = max(memoryRate, try await decisionsPerSecond(dpopPolicy, store: MemoryReplayStore(), subjects: { batch[$0] }, count: batch.count))
        }
        // The floor of a fresh proof: one ES256 verification with its key already made.
        let sample = try CompactJWS(proofs[0])
        guard let members = sample.header.object["jwk"]?.objectValue else { throw BenchmarkError("the proof has no jwk") }
        let proofKey = try JWK(object: members)
        let floor = measureRate(seconds: 1) { blackHole(try? sample.verify(with: proofKey)) }
        var rows = [BenchmarkRow(name: "DPoP-bound request (ES256 token and proof, jti in memory)", ours: memoryRate, reference: bearerRate,
                                 referenceName: "the same token as a bearer token", target: nil),
                    BenchmarkRow(name: "the same DPoP-bound request", ours: memoryRate, reference: floor,
                                 referenceName: "one ES256 verification, key made once", target: nil)]
        guard let settings = ProcessInfo.processInfo.environment["REPLAY_PG"]?.split(separator: ":", omittingEmptySubsequences: false).map(String.init),
              settings.count == 5, let port = Int(settings[1]) else {
            print("(the PostgreSQL rows need REPLAY_PG=HOST:PORT:USER:PASSWORD:DATABASE; Benchmarks/dpop-load.sh starts a server and sets it)")
            return rows
        }
        var configuration = PostgresReplayStore.Configuration(host: settings[0], port: port, username: settings[2], password: settings[3], database: settings[4])
        configuration.tls = .disable
        let store = try PostgresReplayStore(configuration: configuration, logger: Logger(label: "bench"))
        let service = Task { try await store.run() }
        defer { service.cancel() }
        let warm = fresh(100)
        _ = try await decisionsPerSecond(dpopPolicy, store: store, subjects: { warm[$0] }, count: warm.count)
        let sequential = fresh(4_000)
        let postgresRate = try await decisionsPerSecond(dpopPolicy, store: store, subjects: { sequential[$0] }, count: sequential.count)
        rows.append(BenchmarkRow(name: "the same, jti in PostgreSQL, one decision at a time", ours: postgresRate, reference: memoryRate,
                                 referenceName: "jti in memory", target: nil))
        let concurrent = fresh(16_000)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: concurrent.count, by: 8) {
                        let verdict = try await dpopPolicy.evaluate(EvaluationRequest(subjects: [concurrent[index]], now: now, replayStore: store)).verdict
                        guard verdict.valid else { throw BenchmarkError("decision \(index) was refused: \(verdict.codes)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let concurrentRate = Double(concurrent.count) / (ContinuousClock.now - started).seconds
        rows.append(BenchmarkRow(name: "the same, jti in PostgreSQL, 8 decisions in flight", ours: concurrentRate, reference: memoryRate,
                                 referenceName: "jti in memory", target: nil))
        return rows
    }
}
