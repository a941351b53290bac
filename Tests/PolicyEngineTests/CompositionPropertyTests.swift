@_spi(RuleAuthoring) @testable import PolicyRuntime
@_spi(RuleAuthoring) @testable import PolicyJOSE
import Testing

/// Random `all_of` / `any_of` / `not` / `when` trees over stub rules, evaluated by the engine and
/// by a reference evaluator of the documented three-valued semantics. The bug class: Envoy's
/// `requires_any` once let a failed branch's status leak into the group's; here, a `not` over
/// input that could not be judged must never pass.
@Suite("Composition properties")
struct CompositionPropertyTests {
    /// What a leaf does: hold, fail on a mismatch, fail on input it cannot judge, be blocked, or
    /// be skipped for an absent optional input.
    enum Leaf: CaseIterable {
        case holds, mismatch, undecidable, blocked, skipped
    }

    /// The reference's values.
    enum Value: Equatable {
        case pass, fail, undecided, skipped
    }

    struct StubRule: Rule {
        static let key = "stub"
        static let summary = "a fixed outcome"
        static let phase = RulePhase.claims
        static let findingCodes = [FindingCode("stub_mismatch"), FindingCode("stub_undecidable", .undecided)]
        static let argumentShape = ArgumentShape.any
        let leaf: Leaf
        static func compile(_ node: YAMLNode?, _ compiler: inout RuleCompiler) -> [CompiledRule] { [] }
        var explanation: String { "\(leaf)" }
        func evaluate(_ context: EvaluationContext) -> RuleOutcome {
            switch leaf {
            case .holds, .skipped: .pass()
            case .mismatch: .fail(FindingCode("stub_mismatch"), "mismatch")
            case .undecidable: .fail(FindingCode("stub_undecidable", .undecided), "cannot judge")
            case .blocked: .blocked("blocked by another rule")
            }
        }
    }

    indirect enum Tree {
        case leaf(Leaf)
        case all([Tree]), any([Tree]), not(Tree), when(Tree, Tree)

        var reference: Value {
            switch self {
            case let .leaf(leaf):
                switch leaf {
                case .holds: return .pass
                case .mismatch: return .fail
                case .undecidable, .blocked: return .undecided
                case .skipped: return .skipped
                }
            case let .all(children):
                let values = children.map(\.reference)
                if values.contains(.fail) { return .fail }
                if values.contains(.undecided) { return .undecided }
                return values.contains(.pass) ? .pass : .skipped
            case let .any(children):
                let values = children.map(\.reference)
                if values.contains(.pass) { return .pass }
                if values.contains(.undecided) { return .undecided }
                return values.contains(.fail) ? .fail : .skipped
            case let .not(child):
                switch child.reference {
                case .pass: return .fail
                case .fail: return .pass
                case let other: return other
                }
            case let .when(condition, then):
                switch condition.reference {
                case .pass: return then.reference
                case .fail: return .pass
                case let other: return other
                }
            }
        }

        func node(_ counter: inout Int) -> ChainNode {
            let here = SourceLocation(file: "tree.yaml", line: counter, column: 1)
            counter += 1
            switch self {
            case let .leaf(leaf):
                return .rule(CompiledRule(rule: StubRule(leaf: leaf), id: "stub.\(counter)", location: here, phase: .claims,
                                          inputs: leaf == .skipped ? ["absent"] : []))
            case let .all(children): return .all(ChainChildren(children.map { $0.node(&counter) }), .init(kind: "all_of", location: here))
            case let .any(children): return .any(ChainChildren(children.map { $0.node(&counter) }), .init(kind: "any_of", location: here))
            case let .not(child): return .not(child.node(&counter), .init(kind: "not", location: here))
            case let .when(condition, then): return .when(condition.node(&counter), then: then.node(&counter), .init(kind: "when", location: here))
            }
        }
    }

    /// A small deterministic generator (SplitMix64), so a failure names a seed that reproduces it.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func tree(depth: Int, _ random: inout SplitMix) -> Tree {
        if depth == 0 || Int.random(in: 0..<3, using: &random) == 0 { return .leaf(Leaf.allCases.randomElement(using: &random)!) }
        let children = { (random: inout SplitMix) in (0..<Int.random(in: 1...3, using: &random)).map { _ in tree(depth: depth - 1, &random) } }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .all(children(&random))
        case 1: return .any(children(&random))
        case 2: return .not(tree(depth: depth - 1, &random))
        default: return .when(tree(depth: depth - 1, &random), tree(depth: depth - 1, &random))
        }
    }

    static func value(of result: ChainEvaluator.Result) -> Value {
        switch result {
        case .pass: .pass
        case .skipped: .skipped
        case .fail(_, undecided: true): .undecided
        case .fail: .fail
        }
    }

    @Test("5,000 random trees: the engine agrees with the reference in both modes, and a failing tree always has a reason")
    func randomTrees() {
        let context = EvaluationContext(now: 0, inputs: [:], token: nil)
        var random = SplitMix(state: 0x5EED)
        var groups = (unretained: 0, nodes: 0)
        for index in 0..<5000 {
            let tree = Self.tree(depth: 4, &random)
            var counter = 1
            let root = tree.node(&counter)
            Self.countGroups(root, &groups)
            for failFast in [false, true] {
                var evaluator = ChainEvaluator(context: context, failFast: failFast)
                let result = evaluator.run(root)
                #expect(Self.value(of: result) == tree.reference, "tree \(index), fail-fast \(failFast): \(tree)")
            }
        }
        // Both walks are judged: groups of rules alone call them unretained, the others as nodes.
        #expect(groups.unretained > 1000 && groups.nodes > 1000, "\(groups)")
    }

    /// Counts the `all_of` and `any_of` groups of `node` whose children keep their rules
    /// unretained (every child a rule) and those walked as nodes.
    static func countGroups(_ node: ChainNode, _ groups: inout (unretained: Int, nodes: Int)) {
        switch node {
        case .rule: break
        case let .all(children, _), let .any(children, _):
            if children.unretainedRules != nil { groups.unretained += 1 } else { groups.nodes += 1 }
            for child in children { countGroups(child, &groups) }
        case let .not(child, _): countGroups(child, &groups)
        case let .when(condition, then, _):
            countGroups(condition, &groups)
            countGroups(then, &groups)
        }
    }

    @Test("the cases by hand: not over undecided input fails, a when with an undecided condition fails, any_of passes on one branch")
    func namedCases() {
        let context = EvaluationContext(now: 0, inputs: [:], token: nil)
        let cases: [(Tree, Value)] = [
            (.not(.leaf(.undecidable)), .undecided), (.not(.leaf(.blocked)), .undecided), (.not(.leaf(.mismatch)), .pass),
            (.when(.leaf(.undecidable), .leaf(.holds)), .undecided), (.when(.leaf(.mismatch), .leaf(.mismatch)), .pass),
            (.any([.leaf(.undecidable), .leaf(.holds)]), .pass), (.any([.leaf(.undecidable), .leaf(.mismatch)]), .undecided),
            (.not(.all([.leaf(.mismatch), .leaf(.undecidable)])), .pass), (.not(.any([.leaf(.skipped)])), .skipped),
        ]
        for (tree, expected) in cases {
            var counter = 1
            var evaluator = ChainEvaluator(context: context, failFast: false)
            #expect(Self.value(of: evaluator.run(tree.node(&counter))) == expected, "\(tree)")
        }
    }
}
