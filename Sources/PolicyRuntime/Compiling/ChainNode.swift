@_spi(RuleAuthoring) import PolicyJOSE

/// The compiled form of a policy: a tree of rules and combinators, built once and evaluated many times.
///
/// Only the combinators are `indirect`: a rule's node holds its `CompiledRule` in place, so the
/// chain's walk reads it without retaining a box's copy around every rule it runs.
@_spi(RuleAuthoring) public enum ChainNode: Sendable {
    case rule(CompiledRule)
    /// Every child must hold (in fail-fast mode, stops at the first failure).
    indirect case all(ChainChildren, Composite)
    /// At least one child must hold; when none does, the most specific failure is reported.
    indirect case any(ChainChildren, Composite)
    /// The child must not hold.
    indirect case not(ChainNode, Composite)
    /// When the condition holds, the consequence must too; otherwise nothing is required.
    indirect case when(ChainNode, then: ChainNode, Composite)

    /// How a combinator was written: its optional `id` and `message`, and where.
    public struct Composite: Sendable {
        /// `all_of`, `any_of`, `not`, `when` or `policy`.
        public let kind: String
        /// The `id` the author gave, which names its finding.
        public let id: String?
        /// The `message` the author gave, which replaces its finding's.
        public let message: String?
        /// Where it is written.
        public let location: SourceLocation

        /// A composite of `kind`, written at `location`.
        public init(kind: String, id: String? = nil, message: String? = nil, location: SourceLocation) {
            self.kind = kind
            self.id = id
            self.message = message
            self.location = location
        }
    }

    /// Every rule in the tree, in evaluation order.
    public var rules: [CompiledRule] {
        switch self {
        case let .rule(rule): [rule]
        case let .all(children, _), let .any(children, _): children.flatMap(\.rules)
        case let .not(child, _): child.rules
        case let .when(condition, then, _): condition.rules + then.rules
        }
    }
}

/// A combinator's children, in order.
///
/// When every child is a rule (a policy's own chain usually is), the children also keep their
/// rules as unretained references, which the chain's walk calls (`ChainEvaluator`): the nodes
/// beside them own the same objects for as long as the children exist, and every evaluation of
/// a policy otherwise retained and released each of its rules, objects that every worker of a
/// batch shares — reference counts the cores would pass between them on every record.
@_spi(RuleAuthoring) public struct ChainChildren: RandomAccessCollection, Sendable {
    /// The children.
    public let nodes: [ChainNode]
    /// Each child's rule, unretained, when every child is a rule; read only while `nodes`
    /// holds them, that is, through this value.
    let unretainedRules: [Unmanaged<CompiledRule>]?

    /// The children `nodes`.
    public init(_ nodes: [ChainNode]) {
        self.nodes = nodes
        let rules = nodes.compactMap { node -> Unmanaged<CompiledRule>? in
            if case let .rule(rule) = node { Unmanaged.passUnretained(rule) } else { nil }
        }
        unretainedRules = rules.count == nodes.count ? rules : nil
    }

    /// The first child's position.
    public var startIndex: Int { nodes.startIndex }
    /// The position after the last child.
    public var endIndex: Int { nodes.endIndex }
    /// The child at `position`.
    public subscript(position: Int) -> ChainNode { nodes[position] }
}
