/// Runs a chain against one context, collecting findings, skipped rules and the trace.
struct ChainEvaluator {
    enum Result {
        case pass
        case fail([Finding])
        case skipped
    }

    let context: EvaluationContext
    let failFast: Bool
    var entries: [Trace.Entry] = []
    var skipped: [String] = []
    var verifiedKey: VerifiedKey?
    /// Values passing rules handed over, for a valid verdict's `outputs`.
    var outputs: [String: JSONValue] = [:]

    init(context: EvaluationContext, failFast: Bool) {
        self.context = context
        self.failFast = failFast
    }

    var tracing: Bool { context.tracing }

    mutating func run(_ node: ChainNode) -> Result {
        switch node {
        case let .rule(rule):
            return run(rule)
        case let .all(children, composite):
            var findings: [Finding] = []
            var anyRan = false, failed = false
            for (index, child) in children.enumerated() {
                switch run(child) {
                case .pass: anyRan = true
                case .skipped: break
                case let .fail(childFindings):
                    anyRan = true
                    failed = true
                    findings += childFindings
                    if failFast {
                        for rest in children[(index + 1)...] { markNotRun(rest, "fail-fast: an earlier rule failed") }
                        return .fail(overridden(findings, composite))
                    }
                }
            }
            if failed { return .fail(overridden(findings, composite)) }
            return anyRan ? .pass : .skipped
        case let .any(children, composite):
            var failures: [Finding] = []
            var anyFailed = false
            for (index, child) in children.enumerated() {
                switch run(child) {
                case .pass:
                    for rest in children[(index + 1)...] { markNotRun(rest, "an earlier branch of any_of held") }
                    return .pass
                case .skipped: break
                case let .fail(findings):
                    anyFailed = true
                    failures += findings
                }
            }
            guard anyFailed else { return .skipped }
            return .fail(overridden(Self.mostSpecific(failures).map { [$0] } ?? [], composite))
        case let .not(child, composite):
            switch run(child) {
            case .skipped: return .skipped
            case .fail: return .pass
            case .pass:
                let inner = child.rules.map(\.rule.explanation).joined(separator: "; ")
                let finding = Finding(rule: composite.id ?? child.rules.first.map { "not(\($0.id))" } ?? "not",
                                      code: .notSatisfied, message: composite.message ?? "must not hold, but did: \(inner)",
                                      at: composite.location.description)
                return .fail([finding])
            }
        case let .when(condition, then, composite):
            switch run(condition) {
            case .skipped:
                markNotRun(then, "the condition was skipped")
                return .skipped
            case .fail:
                markNotRun(then, "the condition did not hold")
                return .pass
            case .pass:
                switch run(then) {
                case let .fail(findings): return .fail(overridden(findings, composite))
                case let other: return other
                }
            }
        }
    }

    private mutating func run(_ rule: CompiledRule) -> Result {
        if !rule.inputs.isEmpty, let missing = rule.inputs.first(where: { context.inputs[$0] == nil }) {
            skipped.append(rule.id)
            record(rule, .skipped, "optional input '\(missing)' was not supplied")
            return .skipped
        }
        let outcome = rule.rule.evaluate(context)
        switch outcome.status {
        case .pass:
            if let key = outcome.verifiedKey { verifiedKey = key }
            if !outcome.outputs.isEmpty { outputs.merge(outcome.outputs) { $1 } }
            record(rule, .pass, outcome.detail)
            return .pass
        case .fail:
            let finding = Finding(rule: rule.id, code: outcome.code ?? .customRuleFailed, message: outcome.message ?? "the rule failed",
                                  at: rule.location.description, nested: outcome.nested)
            record(rule, .fail, outcome.detail ?? outcome.message)
            return .fail([finding])
        case .blocked:
            record(rule, .notRun, outcome.detail)
            return .fail([])
        }
    }

    mutating func markNotRun(_ node: ChainNode, _ reason: String) {
        guard tracing else { return }
        for rule in node.rules { record(rule, .notRun, reason) }
    }

    private mutating func record(_ rule: CompiledRule, _ status: Trace.Entry.Status, _ detail: String?) {
        guard tracing else { return }
        entries.append(Trace.Entry(rule: rule.id, status: status, at: rule.location.description, detail: detail))
    }

    private func overridden(_ findings: [Finding], _ composite: ChainNode.Composite) -> [Finding] {
        guard composite.message != nil || composite.id != nil, let first = findings.first else { return findings }
        return [Finding(rule: composite.id ?? first.rule, code: first.code, message: composite.message ?? first.message,
                        at: composite.location.description, nested: first.nested)]
    }

    /// The failure that says the most: a concrete mismatch outranks "claim missing".
    static func mostSpecific(_ findings: [Finding]) -> Finding? {
        findings.first { $0.code != .claimMissing } ?? findings.first
    }
}
