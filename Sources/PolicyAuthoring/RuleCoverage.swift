@_spi(RuleAuthoring) package import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// Which of a policy's rules some case ran, and which finding codes some case produced: what a
/// test file leaves unexercised (`policy-run test --coverage`).
///
/// A rule counts as exercised when it passed or failed in some case (not when it was skipped or
/// not run); a code counts when some case's verdict carries it from that rule. The codes a rule
/// can report come from its `reportableCodes`, as it is written in the policy.
package struct RuleCoverage: Sendable {
    /// One compiled rule of the policy.
    package struct Entry: Sendable {
        /// The rule's id, `token.expires`.
        package let rule: String
        /// Where the rule is written.
        package let location: SourceLocation
        /// Whether some case ran it to a pass or a failure.
        package let exercised: Bool
        /// The codes the rule may report that no case produced, in the rule's order.
        package let missingCodes: [FindingCode]
        /// How many codes the rule may report.
        package let codeCount: Int
    }

    /// Every rule of the policy, in evaluation order.
    package let entries: [Entry]

    /// Whether every rule ran and every code was produced.
    package var isComplete: Bool { entries.allSatisfy { $0.exercised && $0.missingCodes.isEmpty } }

    /// Rules exercised, of all rules.
    package var exercisedRules: (covered: Int, total: Int) { (entries.count { $0.exercised }, entries.count) }
    /// Codes produced, of all codes the rules may report.
    package var producedCodes: (covered: Int, total: Int) {
        let total = entries.reduce(0) { $0 + $1.codeCount }
        return (total - entries.reduce(0) { $0 + $1.missingCodes.count }, total)
    }

    /// The coverage of `rules` by `verdicts` (each evaluated with a trace).
    init(rules: [CompiledRule], verdicts: [Verdict]) {
        var ran = Set<String>()
        var produced = Set<String>()
        for verdict in verdicts {
            for entry in verdict.trace?.entries ?? [] where entry.status == .pass || entry.status == .fail { ran.insert(entry.rule) }
            for finding in verdict.findings { produced.insert("\(finding.rule)\u{0}\(finding.code.rawValue)") }
        }
        var seen = Set<String>()
        entries = rules.filter { seen.insert($0.id).inserted }.map { rule in
            // A rule reading no input cannot find one unusable.
            let codes = rule.rule.reportableCodes.filter { $0 != .inputInvalid || !rule.inputs.isEmpty }
            return Entry(rule: rule.id, location: rule.location, exercised: ran.contains(rule.id),
                         missingCodes: codes.filter { !produced.contains("\(rule.id)\u{0}\($0.rawValue)") }, codeCount: codes.count)
        }
    }
}
