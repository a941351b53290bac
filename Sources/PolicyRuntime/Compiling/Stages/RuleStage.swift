@_spi(RuleAuthoring) import PolicyJOSE

/// Stages 4 and 5 of a compile: the token section's shared settings, then the rules of every
/// section and of `rules:`, each compiled through the registry.
struct RuleStage {
    let compiler: PolicyCompiler
    let root: YAMLNode
    let declaredInputs: Set<String>
    var registry: RuleRegistry { compiler.registry }
    var diagnostics = PolicyDiagnostics()
    var keySources: [KeySource] = []
    /// Inputs rules use without being skipped when they are absent (`RuleCompiler.passesOn`).
    var inputsPassedOn: Set<String> = []
    /// The sections the policy uses, at the top level or in `rules:` fragments.
    var sectionsUsed: Set<String> = []
    /// The policy's token settings (stage 4), once read; fragments inherit them.
    private(set) var tokenSettings: TokenSettings?

    init(compiler: PolicyCompiler, root: YAMLNode, declaredInputs: Set<String>) {
        self.compiler = compiler
        self.root = root
        self.declaredInputs = declaredInputs
    }

    private func makeReader(section: String, node: YAMLNode) -> RuleCompiler {
        compiler.reader(section: section, node: node, root: root, declaredInputs: declaredInputs)
    }

    /// Stage 4: the policy's `token` settings (format, decryption, limits, algorithms, leeway).
    mutating func readTokenSettings() {
        guard let node = root["token"], registry.sections["token"] != nil else { return }
        var reader = makeReader(section: "token", node: node)
        tokenSettings = TokenSettings.read(&reader, inheriting: nil)
        diagnostics.append(contentsOf: reader.diagnostics)
        keySources += reader.keySources
        inputsPassedOn.formUnion(reader.inputsPassedOn)
    }

    /// Stage 5a: the rules of every section the policy writes at the top level.
    mutating func sectionRules() -> [ChainNode] {
        var chain: [ChainNode] = []
        for sectionName in registry.sections.keys.sorted() {
            guard let pair = root.pairs?.first(where: { $0.name == sectionName }) else { continue }
            chain += compileSection(pair, includeDefaults: true).map { .rule($0) }
        }
        return chain
    }

    /// Stage 5b: the compositions of `rules:`.
    mutating func compositions() -> [ChainNode] {
        guard let rulesNode = root["rules"] else { return [] }
        guard let items = rulesNode.items else {
            diagnostics.error(.wrongType, "'rules' must be a list of rules, found \(rulesNode.shapeDescription)", at: rulesNode)
            return []
        }
        return items.compactMap { compileCombinatorItem($0) }
    }

    /// Compiles a section's rules. Defaults (rules that run unless configured otherwise) apply to
    /// the policy's own section, not to fragments inside `rules:`; they are located at the
    /// section's key.
    private mutating func compileSection(_ pair: YAMLPair, includeDefaults: Bool) -> [CompiledRule] {
        let name = pair.name, node = pair.value
        guard let section = registry.sections[name] else { return [] }
        sectionsUsed.insert(name)
        var reader = makeReader(section: name, node: node)
        reader.sectionLocation = pair.keyLocation
        if name == "token" {
            // The policy's own section uses the settings of stage 4; a fragment inherits them.
            reader.tokenSettings = includeDefaults ? tokenSettings ?? .standard : TokenSettings.read(&reader, inheriting: tokenSettings)
        }
        guard let pairs = reader.mapping(node, allowed: section.keys, what: "the '\(name)' section") else {
            diagnostics.append(contentsOf: reader.diagnostics)
            return []
        }
        var compiled: [CompiledRule] = []
        for ruleType in section.rules {
            if let pair = pairs.first(where: { $0.name == ruleType.key }) {
                compiled += ruleType.compile(pair.value, &reader)
            } else if includeDefaults, ruleType.runsByDefault {
                compiled += ruleType.compile(nil, &reader)
            }
        }
        if includeDefaults {
            for lint in section.lints { lint(node, &reader) }
        }
        diagnostics.append(contentsOf: reader.diagnostics)
        keySources += reader.keySources
        inputsPassedOn.formUnion(reader.inputsPassedOn)
        return compiled
    }

    private mutating func compileCombinatorItem(_ node: YAMLNode) -> ChainNode? {
        let sectionNames = registry.sections.keys.sorted()
        guard let pairs = node.pairs else {
            diagnostics.error(.wrongType, "each rule must be a mapping such as {token: {...}} or {any_of: [...]}, found \(node.shapeDescription)", at: node)
            return nil
        }
        var reader = makeReader(section: "rules", node: node)
        _ = reader.mapping(node, allowed: PolicyCompiler.combinatorKeys + sectionNames, what: "a rule")
        let id = node["id"].flatMap { reader.literalString($0, what: "'id'") }
        let message = node["message"].flatMap { reader.literalString($0, what: "'message'") }
        diagnostics.append(contentsOf: reader.diagnostics)
        let composite = { (kind: String) in ChainNode.Composite(kind: kind, id: id, message: message, location: node.location) }

        let operators = pairs.map(\.name).filter { ["all_of", "any_of", "not", "when"].contains($0) }
        let fragments = pairs.filter { sectionNames.contains($0.name) }
        guard operators.count + (fragments.isEmpty ? 0 : 1) == 1 else {
            diagnostics.error(.conflict, "a rule holds exactly one of all_of, any_of, not, when/then, or section fragments", at: node)
            return nil
        }
        if node["then"] != nil, node["when"] == nil {
            diagnostics.error(.missingKey, "'then' needs a 'when'", at: node["then"]!)
            return nil
        }
        if !fragments.isEmpty {
            let rules = fragments.flatMap { compileSection($0, includeDefaults: false) }
            guard !rules.isEmpty else { return nil }
            if rules.count == 1, id == nil, message == nil { return .rule(rules[0]) }
            return .all(ChainChildren(rules.map { .rule($0) }), composite("all_of"))
        }
        switch operators[0] {
        case "all_of", "any_of":
            let listNode = node[operators[0]]!
            guard let items = listNode.items, !items.isEmpty else {
                diagnostics.error(.wrongType, "'\(operators[0])' must be a non-empty list of rules, found \(listNode.shapeDescription)", at: listNode)
                return nil
            }
            let children = items.compactMap { compileCombinatorItem($0) }
            guard children.count == items.count else { return nil }
            return operators[0] == "all_of" ? .all(ChainChildren(children), composite("all_of")) : .any(ChainChildren(children), composite("any_of"))
        case "not":
            return compileCombinatorItem(node["not"]!).map { .not($0, composite("not")) }
        default:
            guard let thenNode = node["then"] else {
                diagnostics.error(.missingKey, "'when' needs a 'then'", at: node["when"]!)
                return nil
            }
            guard let condition = compileCombinatorItem(node["when"]!), let consequence = compileCombinatorItem(thenNode) else { return nil }
            return .when(condition, then: consequence, composite("when"))
        }
    }

}
