internal import Foundation
@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) package import PolicyJOSE
import Rules

/// Runs policy test files (`policy-run test`): compiles the policy under test, mints or reads
/// each case's subjects, evaluates them at the case's time, and compares each verdict with what
/// the case expects.
///
/// Minted tokens are checked by the policy compiled with the keyring standing in for its key
/// sources; literal tokens, requests and callbacks by the policy as written, with its own keys.
package struct PolicyTestRunner: Sendable {
    /// The rules policies compile with.
    package var registry: RuleRegistry
    /// The stand-in keys minted tokens are signed and encrypted with.
    package let keyring: TestKeyring
    /// The cache remote key sources are fetched through, for cases checked with the policy's
    /// own keys.
    package var keyCache: JWKSCache
    /// The directories policies may read files from; nil: each policy's own directory.
    package var fileRoots: FileRoots?
    /// What `${env:NAME}` reads in a policy's `secret`; nil: the process environment. A policy's
    /// own sources are read even where test keys stand in for them.
    package var environment: [String: String]?
    /// How test files are read.
    package var reader = PolicyTestReader()
    /// Which cases run, by name; nil runs every case.
    package var caseFilter: (@Sendable (String) -> Bool)?

    /// A runner for `registry` (the built-in rules by default), generating its keyring now.
    ///
    /// - Throws: `JOSEError` if the keys cannot be generated.
    package init(registry: RuleRegistry = BuiltinRules.registry, keyCache: JWKSCache = JWKSCache()) throws(JOSEError) {
        self.registry = registry
        self.keyring = try TestKeyring()
        self.keyCache = keyCache
    }

    /// Runs every case of the test file at `path`.
    ///
    /// - Parameter policyText: The policy's text to test instead of its file (the playground's
    ///   editor); it is compiled as if it were the file, with the same roots.
    package func run(file path: String, policyText: String? = nil) async -> PolicyTestReport {
        do {
            return await run(try reader.read(file: path), policyText: policyText)
        } catch {
            return PolicyTestReport(path: path, policyName: nil, problems: error.sorted, results: [], coverage: nil)
        }
    }

    /// Runs every case of a test file already read (`reader`), for a caller that reads its cases too.
    package func run(_ file: PolicyTestFile, policyText: String? = nil) async -> PolicyTestReport {
        let path = file.path
        let cases = file.cases.filter { caseFilter?($0.name) ?? true }
        let needsOwnKeys = cases.contains { if case .minted = $0.token { false } else { true } }
        let needsStandIns = cases.contains { if case .minted = $0.token { true } else { false } }
        var problems: [Diagnostic] = []
        let ownKeys = needsOwnKeys ? compile(file, text: policyText, override: nil, problems: &problems) : nil
        let standIns = needsStandIns ? compile(file, text: policyText, override: keyring.keyOverride, problems: &problems) : nil
        if let policy = ownKeys ?? standIns, policy.name != file.policyName {
            problems.append(Diagnostic(.error, .invalidValue, "\(file.policyPath) is policy '\(policy.name)', not '\(file.policyName)'",
                                       at: file.policyLocation, hint: "name the test file's policy as the policy file names itself"))
        }
        guard problems.isEmpty else {
            return PolicyTestReport(path: path, policyName: file.policyName, problems: problems, results: [], coverage: nil)
        }
        var results: [PolicyTestCaseResult] = []
        for testCase in cases {
            let policy: Policy = if case .minted = testCase.token { standIns! } else { ownKeys! }
            results.append(await run(testCase, policy: policy))
        }
        let rules = (standIns ?? ownKeys)?.root.rules ?? []
        let coverage = results.isEmpty ? nil : RuleCoverage(rules: rules, verdicts: results.compactMap(\.verdict))
        return PolicyTestReport(path: path, policyName: file.policyName, problems: [], results: results, coverage: coverage)
    }

    private func compile(_ file: PolicyTestFile, text: String?, override: KeyOverride?, problems: inout [Diagnostic]) -> Policy? {
        var compiler = PolicyCompiler(registry: registry, environment: environment, keyCache: keyCache, fileRoots: fileRoots)
        compiler.keyOverride = override
        do {
            if let text { return try compiler.compile(text: text, file: file.policyPath) }
            return try compiler.compile(file: file.policyPath)
        } catch {
            for item in error.sorted where !problems.contains(item) { problems.append(item) }
            return nil
        }
    }

    private func run(_ testCase: PolicyTestCase, policy: Policy) async -> PolicyTestCaseResult {
        let started = ContinuousClock.now
        func result(_ outcome: PolicyTestCaseResult.Outcome, _ verdict: Verdict? = nil) -> PolicyTestCaseResult {
            let elapsed = ContinuousClock.now - started
            return PolicyTestCaseResult(name: testCase.name, location: testCase.location, outcome: outcome, verdict: verdict,
                                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        let proof = testCase.dpop.map { DPoPCaseProof(proof: $0, keyring: keyring, policy: policy) }
        var token: String?
        switch testCase.token {
        case var .minted(minted)?:
            do {
                if let proof, proof.proof.bindsToken {
                    minted.claims.set("cnf", .object(JSONObject(["jkt": .string(try proof.client.thumbprint())])))
                }
                token = try TokenMinter(keyring: keyring).mint(minted, for: policy)
            } catch {
                return result(.error("the token could not be minted: \(error.message)"))
            }
        case let .literal(text)?: token = text
        case nil: token = nil
        }
        var request = testCase.request
        if let proof, let bytes = request {
            do {
                request = try proof.request(bytes, token: token, now: testCase.now)
            } catch {
                return result(.error("the DPoP proof could not be minted: \(error.message)"))
            }
            // The token is the request's: the policy takes it from the Authorization header.
            token = nil
        }
        var subjects: [any PolicySubject] = []
        if let request { subjects.append(RequestSubject(json: request)) }
        if let callback = testCase.callback { subjects.append(CallbackSubject(url: callback)) }
        // Each case remembers its own one-time values: cases never see each other's.
        let evaluation = EvaluationRequest(token: token, subjects: subjects, inputs: testCase.inputs, now: UnixTime(seconds: testCase.now), trace: true,
                                           clockSource: "the case's now", replayStore: MemoryReplayStore())
        var verdict: Verdict
        do {
            verdict = try await policy.evaluate(evaluation).verdict
            if testCase.dpop?.replay == true { verdict = try await policy.evaluate(evaluation).verdict }
        } catch {
            return result(.error(error.message))
        }
        let differences = VerdictComparison.differences(testCase.expect, verdict)
        return result(differences.isEmpty ? .passed : .failed(differences), verdict)
    }
}

/// How a verdict differs from what a case expects.
enum VerdictComparison {
    static func differences(_ expect: Expectation, _ verdict: Verdict) -> [String] {
        var differences: [String] = []
        if verdict.valid != expect.valid {
            differences.append("valid: expected \(expect.valid), got \(verdict.valid)")
        }
        let codes = Set(verdict.findings.map(\.code.rawValue))
        if let expected = expect.codes, expected != codes {
            differences.append("codes: expected \(list(expected)), got \(list(codes))")
        }
        for (name, value) in (expect.outputs ?? [:]).sorted(by: { $0.key < $1.key }) {
            let actual = verdict.outputs[name]
            if actual != value {
                differences.append("output \(name): expected \(text(value)), got \(actual.map(text) ?? "nothing")")
            }
        }
        return differences
    }

    static func list(_ codes: Set<String>) -> String { "[" + codes.sorted().joined(separator: ", ") + "]" }

    static func text(_ value: JSONValue) -> String { String(decoding: value.serializedBytes(), as: UTF8.self) }
}
