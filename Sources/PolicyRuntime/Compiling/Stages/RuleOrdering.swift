@_spi(RuleAuthoring) import PolicyJOSE

/// Stage 6 of a compile: the order the chain runs in, in every mode. Cheap structural checks
/// come first, then the signature, then what only a verified token may be judged on: section
/// rules by phase (structure, header, signature, times, claims, hashes), keeping their written
/// order within a phase, with the compositions of `rules:` among the claims checks.
enum RuleOrdering {
    static func chain(sectionRules: [ChainNode], compositions: [ChainNode]) -> [ChainNode] {
        let ordered = sectionRules.enumerated().sorted { lhs, rhs in
            let (a, b) = (phase(of: lhs.element), phase(of: rhs.element))
            return a == b ? lhs.offset < rhs.offset : a < b
        }.map(\.element)
        let claimsEnd = ordered.firstIndex { phase(of: $0) > .claims } ?? ordered.count
        return Array(ordered[..<claimsEnd]) + compositions + Array(ordered[claimsEnd...])
    }

    private static func phase(of node: ChainNode) -> RulePhase {
        if case let .rule(rule) = node { return rule.phase }
        return .claims
    }
}
