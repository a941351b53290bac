import Foundation
import PolicyEngine
import PolicyJOSE
import PolicyRuntime
import Rules

/// `matches` patterns against hostile input: pathological patterns that make backtracking
/// engines exponential, each against the same claim under a literal pattern (`a*`) in the same
/// run. Linear time shows as a ratio that stays flat as the input grows; the ICU engine that
/// NSRegularExpression uses is timed on `(a+)+b` for contrast, at sizes it survives.
enum PatternBenchmark {
    static let now: Double = 1_795_253_400
    static let secret = [UInt8](repeating: 0x5A, count: 32)
    static let pathological = ["(a+)+b", "(a|aa)*c", "(a*)*b", "(.*a){12}x", "([a-z]+\\s?)*!"]
    static let sizes = [1_000, 10_000, 40_000]

    static func policy(_ pattern: String) throws -> Policy {
        try Policy.load(text: """
        policy: pattern
        token:
          algorithms: [HS256]
          keys: {secret: "${env:K}"}
          expires: optional
          claims:
            c: {matches: '\(pattern)'}
        """, file: "pattern.yaml", environment: ["K": Base64URL.encode(secret)])
    }

    static func token(_ size: Int) throws -> String {
        let claims = JSONValue.object(JSONObject(["c": .string(String(repeating: "a", count: size))]))
        return try CompactJWS.sign(payload: claims.serializedBytes(), algorithm: .hs256, key: JWK(secret: secret))
    }

    static func run() throws -> [BenchmarkRow] {
        let literal = try policy("a*")
        var rows: [BenchmarkRow] = []
        for size in sizes {
            let token = try token(size)
            let reference = measureRate(seconds: 0.5, batch: 4) { blackHole(try? literal.evaluateNow(token: token, now: UnixTime(seconds: now))) }
            for pattern in pathological {
                let policy = try policy(pattern)
                guard try policy.evaluateNow(token: token, now: UnixTime(seconds: now)).codes == [.claimMismatch] else {
                    throw BenchmarkError("\(pattern) should not match \(size) a's")
                }
                let rate = measureRate(seconds: 0.5, batch: 4) { blackHole(try? policy.evaluateNow(token: token, now: UnixTime(seconds: now))) }
                rows.append(BenchmarkRow(name: "/\(pattern)/ on \(size) a's", ours: rate, reference: reference,
                                         referenceName: "/a*/ on the same claim", target: 0.1))
            }
        }
        return rows
    }

    /// NSRegularExpression (ICU, backtracking) on `(a+)+b` against n a's: seconds per match.
    static func backtrackingContrast() -> [(size: Int, seconds: Double)] {
        guard let expression = try? NSRegularExpression(pattern: "^(a+)+b$") else { return [] }
        return [16, 20, 22, 24].map { size in
            let text = String(repeating: "a", count: size)
            let start = ContinuousClock.now
            blackHole(expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)))
            return (size, (ContinuousClock.now - start).seconds)
        }
    }
}
