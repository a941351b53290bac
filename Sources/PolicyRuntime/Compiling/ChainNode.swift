@_spi(RuleAuthoring) import PolicyJOSE

/// The compiled form of a policy: a tree of rules and combinators, built once and evaluated many times.
@_spi(RuleAuthoring) public indirect enum ChainNode: Sendable {
    case rule(CompiledRule)
    /// Every child must hold (in fail-fast mode, stops at the first failure).
    case all([ChainNode], Composite)
    /// At least one child must hold; when none does, the most specific failure is reported.
    case any([ChainNode], Composite)
    /// The child must not hold.
    case not(ChainNode, Composite)
    /// When the condition holds, the consequence must too; otherwise nothing is required.
    case when(ChainNode, then: ChainNode, Composite)

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
