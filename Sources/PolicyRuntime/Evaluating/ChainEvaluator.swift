@_spi(RuleAuthoring) import PolicyJOSE

/// Runs a chain against one context, collecting findings, skipped rules and the trace.
///
/// Composition is three-valued (Kleene): a rule holds, fails, or leaves the subject undecided
/// (malformed input, a value of the wrong type, a rule blocked by another's failure). `all_of`
/// fails when a child fails, else is undecided when one is; `any_of` holds when a child holds,
/// else is undecided when one is; `not` swaps holding and failing and keeps undecided; a `when`
/// whose condition is undecided is undecided. An undecided result fails the verdict like a
/// failure, but is never negated into a pass.
struct ChainEvaluator {
    enum Result {
        case pass
        /// `undecided`: the subject could not be judged, so `not` and `when` must not turn it into a pass.
        case fail([Finding], undecided: Bool)
        case skipped

        static func fail(_ findings: [Finding]) -> Result { .fail(findings, undecided: false) }
    }

    let context: EvaluationContext
    let failFast: Bool
    var entries: [Trace.Entry] = []
    var skipped: [String] = []
    var verifiedKey: VerifiedKey?
    /// Values passing rules handed over, for a valid verdict's `outputs`.
    var outputs: [String: JSONValue] = [:]
    /// One-time values passing rules handed over, with the rule that found each, for the
    /// evaluation to record when the verdict is otherwise valid.
    var oneTimeValues: [(rule: CompiledRule, value: OneTimeValue)] = []
    /// Whether the token's signature failed: from then on no rule after the signature phase
    /// judges it, so no finding about an unverified token quotes what the policy expects.
    var signatureFailed = false

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
            var anyRan = false, failed = false, decided = false
            for index in children.indices {
                switch run(children, index) {
                case .pass: anyRan = true
                case .skipped: break
                case let .fail(childFindings, undecided):
                    anyRan = true
                    failed = true
                    decided = decided || !undecided
                    // The child's array itself when it is the first: most failing chains fail once,
                    // and rules a failed signature kept from running bring none.
                    if findings.isEmpty { findings = childFindings } else if !childFindings.isEmpty { findings += childFindings }
                    // Fail-fast stops at a failure that decides the group. Inside a composition it
                    // goes on past an undecided one, since a later mismatch would decide it and a
                    // `not` above reads that; the policy's own chain needs no such answer.
                    if failFast, !undecided || composite.kind == "policy" {
                        for rest in children[(index + 1)...] { markNotRun(rest, "fail-fast: an earlier rule failed") }
                        return .fail(overridden(findings, composite), undecided: !decided)
                    }
                }
            }
            if failed { return .fail(overridden(findings, composite), undecided: !decided) }
            return anyRan ? .pass : .skipped
        case let .any(children, composite):
            var failures: [Finding] = []
            var anyFailed = false, undecided = false
            for index in children.indices {
                switch run(children, index) {
                case .pass:
                    for rest in children[(index + 1)...] { markNotRun(rest, "an earlier branch of any_of held") }
                    return .pass
                case .skipped: break
                case let .fail(findings, childUndecided):
                    anyFailed = true
                    undecided = undecided || childUndecided
                    if failures.isEmpty { failures = findings } else if !findings.isEmpty { failures += findings }
                }
            }
            guard anyFailed else { return .skipped }
            return .fail(overridden(Self.mostSpecific(failures).map { [$0] } ?? [], composite), undecided: undecided)
        case let .not(child, composite):
            switch run(child) {
            case .skipped: return .skipped
            case let .fail(findings, undecided: true): return .fail(findings, undecided: true)
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
            case let .fail(findings, undecided: true):
                markNotRun(then, "the condition could not be judged")
                return .fail(overridden(findings, composite), undecided: true)
            case .fail:
                markNotRun(then, "the condition did not hold")
                return .pass
            case .pass:
                switch run(then) {
                case let .fail(findings, undecided): return .fail(overridden(findings, composite), undecided: undecided)
                case let other: return other
                }
            }
        }
    }

    /// The child at `index` of `children`, a rule called through its unretained reference when
    /// the children keep them (`ChainChildren.unretainedRules`).
    @inline(__always)
    private mutating func run(_ children: ChainChildren, _ index: Int) -> Result {
        guard let rules = children.unretainedRules else { return run(children[index]) }
        return rules[index]._withUnsafeGuaranteedRef { run($0) }
    }

    private mutating func run(_ rule: CompiledRule) -> Result {
        if !rule.inputs.isEmpty, let missing = rule.inputs.first(where: { context.inputs[$0] == nil }) {
            skipped.append(rule.id)
            record(rule, .skipped, "optional input '\(missing)' was not supplied")
            return .skipped
        }
        if signatureFailed, rule.phase > .signature {
            record(rule, .notRun, "the token is not verified; what it claims is not judged")
            return .fail([], undecided: true)
        }
        let outcome = rule.rule.evaluate(context)
        if outcome.isPlainPass {
            if tracing { record(rule, .pass, nil) }
            return .pass
        }
        // The particulars are read from the outcome's one object, and the trace's parts only
        // when tracing: the outcome's accessors made an empty dictionary or array for each part
        // a pass (a verified signature's, most often) does not have.
        let particulars = outcome.particulars
        let status = outcome.status
        switch status {
        case .pass:
            if let particulars {
                if !particulars.outputs.isEmpty { outputs.merge(particulars.outputs) { $1 } }
                for value in particulars.oneTimeValues { oneTimeValues.append((rule, value)) }
                if tracing { record(rule, .pass, particulars.detail, nested: particulars.nestedTrace) }
            } else if tracing {
                record(rule, .pass, nil)
            }
            // Moved out of the outcome, which ends here: a copy retained and released the key.
            if let key = (consume outcome).proofKey { verifiedKey = key }
            return .pass
        case .fail:
            assert(particulars?.code.map(rule.rule.reportableCodes.contains) ?? true,
                   "\(rule.id) reported \(particulars!.code!.rawValue), which it does not list in reportableCodes")
            let finding = Finding(rule: rule.id, code: particulars?.code ?? .customRuleFailed, message: particulars?.message ?? "the rule failed",
                                  timeQuote: particulars?.timeQuote, at: rule.locationText, nested: particulars?.nested ?? [])
            if tracing { record(rule, .fail, particulars?.detail ?? particulars?.message, nested: particulars?.nestedTrace ?? []) }
            if rule.checksSignature { signatureFailed = true }
            return .fail([finding], undecided: finding.code.meansUndecided)
        case .blocked:
            // Another rule's failure kept this one from judging: it has no finding of its own.
            if tracing { record(rule, .notRun, particulars?.detail) }
            if rule.checksSignature { signatureFailed = true }
            return .fail([], undecided: true)
        }
    }

    mutating func markNotRun(_ node: ChainNode, _ reason: String) {
        guard tracing else { return }
        for rule in node.rules { record(rule, .notRun, reason) }
    }

    /// Adds `rule` to the trace, followed by the trace of a policy it evaluated in turn, whose
    /// rules are named under it (`token.embedded_tokens.njwt > token.issuer`).
    private mutating func record(_ rule: CompiledRule, _ status: Trace.Entry.Status, _ detail: String?, nested: [Trace.Entry] = []) {
        guard tracing else { return }
        entries.append(Trace.Entry(rule: rule.id, status: status, at: rule.locationText, detail: detail))
        for entry in nested {
            entries.append(Trace.Entry(rule: "\(rule.id) > \(entry.rule)", status: entry.status, at: entry.at, detail: entry.detail))
        }
    }

    private func overridden(_ findings: [Finding], _ composite: ChainNode.Composite) -> [Finding] {
        guard composite.message != nil || composite.id != nil, let first = findings.first else { return findings }
        return [Finding(rule: composite.id ?? first.rule, code: first.code, message: composite.message ?? first.message,
                        timeQuote: composite.message == nil ? first.timeQuote : nil, at: composite.location.description, nested: first.nested)]
    }

    /// The failure that says the most: a concrete mismatch outranks an absence (`claim_missing`,
    /// `azp_missing`, every code of kind `absent`).
    static func mostSpecific(_ findings: [Finding]) -> Finding? {
        findings.first { $0.code.kind != .absent } ?? findings.first
    }
}
