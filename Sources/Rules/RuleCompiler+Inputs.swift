@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

extension RuleCompiler {
    /// A rule compiled so that the absence of `value`'s input does not skip it: for
    /// `challenge_method`, whose absent value means `plain`.
    mutating func finish(_ rule: some Rule, at location: SourceLocation, evenWithout value: PolicyValue?) -> CompiledRule {
        finish(rule, at: location) { $0.filter { !(value?.inputNames.contains($0) ?? false) } }
    }

    /// A rule skipped exactly when one of `inputs` is absent, whatever its settings read: for
    /// rules compiled from one shared mapping, such as one rule per encrypted field.
    mutating func finish(_ rule: some Rule, id: String?, at location: SourceLocation, inputs: [String]) -> CompiledRule {
        finish(rule, id: id, at: location) { _ in inputs }
    }

    /// A finished rule whose skip-inputs are `adjust`ed from those read since the last rule.
    private mutating func finish(_ rule: some Rule, id: String? = nil, at location: SourceLocation, adjust: ([String]) -> [String]) -> CompiledRule {
        let compiled = finish(rule, id: id, at: location)
        let inputs = adjust(compiled.inputs)
        // Read, though its absence does not skip the rule: still a use of the input.
        passesOn(inputs: compiled.inputs.filter { !inputs.contains($0) })
        return CompiledRule(rule: compiled.rule, id: compiled.id, location: compiled.location, phase: compiled.phase, inputs: inputs)
    }
}
