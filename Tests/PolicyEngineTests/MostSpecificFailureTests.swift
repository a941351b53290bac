@_spi(RuleAuthoring) @testable import PolicyRuntime
@_spi(RuleAuthoring) @testable import PolicyJOSE
import Testing

/// `any_of` whose every branch fails reports one finding: the most specific. Checked on the
/// engine alone, with stub rules and codes of each kind.
@Suite("Most specific failure")
struct MostSpecificFailureTests {
    struct FailingRule: Rule {
        static let key = "failing"
        static let summary = "fails with a fixed code"
        static let phase = RulePhase.claims
        static let findingCodes = [absent, otherAbsent, mismatch, otherMismatch, undecided]
        static let argumentShape = ArgumentShape.any
        let code: FindingCode
        static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }
        var explanation: String { code.rawValue }
        func evaluate(_ context: EvaluationContext) -> RuleOutcome { .fail(code, "failed with \(code)") }
    }

    static let absent = FindingCode("stub_missing", .absent)
    static let otherAbsent = FindingCode("other_missing", .absent)
    static let mismatch = FindingCode("stub_mismatch")
    static let otherMismatch = FindingCode("other_mismatch")
    static let undecided = FindingCode("stub_undecided", .undecided)

    static func reported(_ codes: [FindingCode], failFast: Bool) -> [FindingCode] {
        let here = SourceLocation(file: "any.yaml", line: 1, column: 1)
        let branches = codes.enumerated().map { index, code in
            ChainNode.rule(CompiledRule(rule: FailingRule(code: code), id: "branch.\(index)", location: here, phase: .claims, inputs: []))
        }
        var evaluator = ChainEvaluator(context: EvaluationContext(now: 0, inputs: [:], token: nil), failFast: failFast)
        guard case let .fail(findings, _) = evaluator.run(.any(ChainChildren(branches), .init(kind: "any_of", location: here))) else { return [] }
        return findings.map(\.code)
    }

    @Test("an absence never hides a mismatch or an undecided branch, in either mode, wherever it stands",
          arguments: [
              ([absent, mismatch], mismatch), ([mismatch, absent], mismatch), ([absent, otherAbsent, undecided], undecided),
              ([absent, otherAbsent], absent), ([mismatch, otherMismatch], mismatch), ([otherAbsent, absent, otherMismatch], otherMismatch),
          ])
    func mostSpecific(codes: [FindingCode], expected: FindingCode) {
        for failFast in [false, true] {
            #expect(Self.reported(codes, failFast: failFast) == [expected], "\(codes.map(\.rawValue)), fail-fast \(failFast)")
        }
    }
}
