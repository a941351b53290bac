@_spi(RuleAuthoring) import PolicyJOSE

/// The finding codes of composition and inputs.
extension FindingCode {
    /// A `not` whose inner rules held.
    public static let notSatisfied = FindingCode("not_satisfied", .mismatch)
    /// An input value of the wrong type for the rule that reads it.
    public static let inputInvalid = FindingCode("input_invalid", .undecided)
    /// A failure reported by a custom (`x-`) rule.
    public static let customRuleFailed = FindingCode("custom_rule_failed", .mismatch)

    /// Every code of composition and inputs.
    public static let compositionCodes: [FindingCode] = [
        .notSatisfied, .inputInvalid, .customRuleFailed,
    ]
}
