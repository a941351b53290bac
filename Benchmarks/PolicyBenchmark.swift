import Foundation
@_spi(RuleAuthoring) import PolicyEngine
@_spi(RuleAuthoring) import PolicyJOSE
@_spi(RuleAuthoring) import PolicyRuntime
import Rules

/// The policy layer's own cost, on the bundled okta-id-token policy and its sample token: what
/// compiling adds to reading the YAML, and what evaluating adds to verifying the JWS alone.
enum PolicyBenchmark {
    static let policyFile = "Policies/okta-id-token.yaml"
    static let files = ["Policies/okta-id-token.yaml", "Policies/oidc-id-token.yaml"]
    static let sampleFile = "Policies/examples/sample-id-token.jwt"
    static let keyFile = "Policies/keys/test-rs256.jwks.json"
    /// 2026-11-21T09:30:00Z, when the sample is valid.
    static let now: Double = 1_795_253_400

    struct Result {
        let rows: [BenchmarkRow]
        /// Microseconds a compile spends after its files are parsed.
        let compileMicroseconds: Double
    }

    static func run() throws -> Result {
        guard FileManager.default.fileExists(atPath: policyFile) else {
            throw BenchmarkError("run from the package root: \(policyFile) not found")
        }
        let loader = YAMLLoader()
        let token = try String(contentsOfFile: sampleFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let policy = try Policy.load(file: policyFile, environment: [:])
        let keys = try JWKSet(json: Array(FileManager.default.contents(atPath: keyFile) ?? Data()))
        let inputs: [String: JSONValue] = ["nonce": .string("n-0S6_WzA2Mj")]
        guard try policy.evaluateNow(token: token, inputs: inputs, now: UnixTime(seconds: now)).valid else { throw BenchmarkError("the sample token is not valid") }

        var parse = 0.0, compile = 0.0, verify = 0.0, evaluate = 0.0
        for _ in 0..<JOSEBenchmark.rounds {
            parse = max(parse, measureRate(seconds: 1, batch: 8) {
                for file in files { blackHole(try? loader.load(file: file)) }
            })
            compile = max(compile, measureRate(seconds: 1, batch: 8) {
                blackHole(try? Policy.load(file: policyFile, environment: [:]))
            })
            verify = max(verify, measureRate(seconds: 1) {
                do {
                    let jws = try CompactJWS(token)
                    blackHole(try jws.claims())
                    blackHole(try jws.verify(with: keys.candidates(for: jws.algorithm, kid: jws.header.kid)[0]))
                } catch {
                    fatalError("verify failed: \(error)")
                }
            })
            evaluate = max(evaluate, measureRate(seconds: 1) {
                blackHole(try? policy.evaluateNow(token: token, inputs: inputs, now: UnixTime(seconds: now)))
            })
        }
        let afterParse = (1 / compile - 1 / parse) * 1e6
        return Result(rows: [
            BenchmarkRow(name: "compile okta-id-token (2 files + JWKS)", ours: compile, reference: parse,
                         referenceName: "YAML load of its 2 files (Yams)", target: nil),
            BenchmarkRow(name: "evaluate the sample ID token (\(token.utf8.count) B)", ours: evaluate, reference: verify,
                         referenceName: "whole RS256 JWS verify, no rules", target: nil),
        ], compileMicroseconds: afterParse)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
