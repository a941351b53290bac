@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// What running one test file found: its cases' results, or the problems that kept it from
/// running (a malformed test file, a policy that does not compile).
package struct PolicyTestReport: Sendable {
    /// The test file's path, as given.
    package let path: String
    /// The policy under test, once the file named it.
    package let policyName: String?
    /// Problems of the test file or its policy; when there are any, no case ran.
    package let problems: [Diagnostic]
    /// Every case run, in file order (cases a filter left out are absent).
    package let results: [PolicyTestCaseResult]
    /// Which rules and finding codes the cases exercised; nil when nothing ran.
    package let coverage: RuleCoverage?

    /// A report; the runner makes them, and tools may to render their own.
    package init(path: String, policyName: String?, problems: [Diagnostic], results: [PolicyTestCaseResult], coverage: RuleCoverage?) {
        self.path = path
        self.policyName = policyName
        self.problems = problems
        self.results = results
        self.coverage = coverage
    }

    /// Cases that passed.
    package var passed: Int { results.count { $0.outcome == .passed } }
    /// Cases that failed or could not run.
    package var failed: Int { results.count - passed }
}

/// One case's outcome.
package struct PolicyTestCaseResult: Sendable {
    /// How the case ended.
    package enum Outcome: Sendable, Equatable {
        /// The verdict was as expected.
        case passed
        /// The verdict differed; each string says how, e.g. `codes: expected [token_expired], got [nonce_mismatch]`.
        case failed([String])
        /// The case could not be evaluated (an undeclared input, a token that could not be minted).
        case error(String)
    }

    /// The case's name.
    package let name: String
    /// Where the case is written.
    package let location: SourceLocation
    /// How it ended.
    package let outcome: Outcome
    /// The verdict, when the case was evaluated.
    package let verdict: Verdict?
    /// Wall-clock seconds the case took, minting included.
    package let seconds: Double

    /// A result; the runner makes them.
    package init(name: String, location: SourceLocation, outcome: Outcome, verdict: Verdict?, seconds: Double) {
        self.name = name
        self.location = location
        self.outcome = outcome
        self.verdict = verdict
        self.seconds = seconds
    }
}
