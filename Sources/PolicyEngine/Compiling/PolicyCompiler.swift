internal import Foundation

/// Turns policy files into compiled `Policy` values: load, resolve `extends`, check every key,
/// compile each rule through the registry, and order the chain.
///
/// Every problem is collected in one pass; the compile throws them all, sorted by location.
public struct PolicyCompiler: Sendable {
    public let registry: RuleRegistry
    /// The environment `${env:NAME}` reads (in `keys` only).
    public var environment: [String: String]
    public var loader: YAMLLoader
    /// The directories the policy may read files from (bases, named policies, key files); nil
    /// means the directory of the policy file being compiled. See `FileRoots`.
    public var fileRoots: FileRoots?
    /// The cache every compiled policy fetches its remote keys through. Compile all of a
    /// process's policies with one cache so policies naming the same source share its keys.
    public var keyCache: JWKSCache
    /// How deep this compile sits inside policies that name other policies (`bearer`).
    var nesting = 0
    /// The deepest chain of policies naming policies: deeper is taken for a cycle.
    static let maxNesting = 4

    /// `environment` defaults to the process environment; `keyCache` to a new cache.
    public init(registry: RuleRegistry, environment: [String: String]? = nil, loader: YAMLLoader = YAMLLoader(), keyCache: JWKSCache = JWKSCache(),
                fileRoots: FileRoots? = nil) {
        self.registry = registry
        self.fileRoots = fileRoots
        self.environment = environment ?? ProcessInfo.processInfo.environment
        self.loader = loader
        self.keyCache = keyCache
    }

    static let topLevelKeys = ["policy", "description", "extends", "mode", "inputs", "rules", "outputs"]
    static let combinatorKeys = ["all_of", "any_of", "not", "when", "then", "message", "id"]

    /// Compiles the policy in `file`; `extends` names are looked up beside it.
    public func compile(file: String) throws(PolicyDiagnostics) -> Policy {
        let compiler = rooted(beside: file)
        var resolver = compiler.extendsResolver(for: file)
        let root = resolver.load(file: file)
        return try compiler.finish(root, resolver: resolver)
    }

    /// Compiles policy text; `file` names it in diagnostics and anchors relative paths.
    public func compile(text: String, file: String) throws(PolicyDiagnostics) -> Policy {
        let compiler = rooted(beside: file)
        var resolver = compiler.extendsResolver(for: file)
        let root = resolver.load(text: text, file: file)
        return try compiler.finish(root, resolver: resolver)
    }

    /// Compiles a policy already in node form (an inline section another policy holds).
    func compile(root: YAMLNode, file: String) throws(PolicyDiagnostics) -> Policy {
        let compiler = rooted(beside: file)
        return try compiler.finish(root, resolver: compiler.extendsResolver(for: file))
    }

    /// This compiler with its file roots fixed: the ones given, or the directory of `file`.
    /// Policies it compiles in turn (bases, named policies) keep the same roots.
    private func rooted(beside file: String) -> PolicyCompiler {
        var compiler = self
        compiler.fileRoots = fileRoots ?? FileRoots.beside(file)
        return compiler
    }

    private func extendsResolver(for file: String) -> ExtendsResolver {
        ExtendsResolver(loader: loader, policyDirectory: PolicyPath.directory(of: file), roots: fileRoots ?? FileRoots.beside(file),
                        subjectSections: Set(registry.sections.keys))
    }

    private func finish(_ root: YAMLNode?, resolver: ExtendsResolver) throws(PolicyDiagnostics) -> Policy {
        var diagnostics = resolver.diagnostics
        guard let root, !diagnostics.hasErrors else { throw diagnostics }
        var state = CompileState(compiler: self, root: root)
        let policy = state.compile(files: resolver.files)
        diagnostics.append(contentsOf: state.diagnostics)
        guard let policy, !diagnostics.hasErrors else { throw diagnostics }
        return policy.withWarnings(diagnostics.warnings)
    }
}

/// The work of one compile: reads the merged tree top-down and accumulates diagnostics.
private struct CompileState {
    let compiler: PolicyCompiler
    let root: YAMLNode
    var registry: RuleRegistry { compiler.registry }
    var environment: [String: String] { compiler.environment }
    var keyCache: JWKSCache { compiler.keyCache }
    var diagnostics = PolicyDiagnostics()
    var declaredInputs: Set<String> = []
    var keySources: [KeySource] = []
    /// The sections the policy uses, at the top level or in `rules:` fragments.
    var sectionsUsed: Set<String> = []

    init(compiler: PolicyCompiler, root: YAMLNode) {
        self.compiler = compiler
        self.root = root
    }

    mutating func compile(files: [String]) -> Policy? {
        let sectionNames = registry.sections.keys.sorted()
        let allowed = PolicyCompiler.topLevelKeys + sectionNames
        var reader = makeReader(section: "", node: root)
        _ = reader.mapping(root, allowed: allowed, what: "a policy")
        diagnostics.append(contentsOf: reader.diagnostics)

        let name = policyName()
        let description = root["description"].flatMap { node -> String? in
            guard let text = node.scalar?.string else {
                diagnostics.error(.wrongType, "'description' must be a string, found \(node.shapeDescription)", at: node)
                return nil
            }
            return text
        }
        let mode = evaluationMode()
        let inputs = compileInputs()
        declaredInputs = Set(inputs.map(\.name))

        var chain: [ChainNode] = []
        var envelope = TokenEnvelope.standard
        for sectionName in sectionNames {
            guard let node = root[sectionName] else { continue }
            if sectionName == "token" { envelope = tokenEnvelope(node) }
            chain += compileSection(sectionName, node, includeDefaults: true).map { .rule($0) }
        }
        var ruleNodes: [ChainNode] = []
        if let rulesNode = root["rules"] {
            if let items = rulesNode.items {
                ruleNodes = items.compactMap { compileCombinatorItem($0) }
            } else {
                diagnostics.error(.wrongType, "'rules' must be a list of rules, found \(rulesNode.shapeDescription)", at: rulesNode)
            }
        }
        if sectionsUsed.isEmpty {
            diagnostics.error(.missingKey, "the policy checks nothing: it needs a section such as 'token'", at: root,
                              hint: "add 'token:' with at least 'algorithms' and 'keys'")
        }
        let outputs = compileOutputs()
        // Fail-fast order: by phase, with composed rules among the claims checks.
        let ordered = chain.enumerated().sorted { lhs, rhs in
            let (a, b) = (phase(of: lhs.element), phase(of: rhs.element))
            return a == b ? lhs.offset < rhs.offset : a < b
        }.map(\.element)
        let claimsEnd = ordered.firstIndex { phase(of: $0) > .claims } ?? ordered.count
        let full = Array(ordered[..<claimsEnd]) + ruleNodes + Array(ordered[claimsEnd...])

        guard let name else { return nil }
        return Policy(name: name, description: description, mode: mode, inputs: inputs, outputs: outputs, envelope: envelope,
                      root: .all(full, .init(kind: "policy", location: root.location)), files: files, warnings: [],
                      keySources: keySources, keyCache: keyCache,
                      subjects: sectionNames.filter { sectionsUsed.contains($0) && registry.sections[$0]!.needsSubject })
    }

    private func phase(of node: ChainNode) -> RulePhase {
        if case let .rule(rule) = node { return rule.phase }
        return .claims
    }

    private func makeReader(section: String, node: YAMLNode) -> RuleCompiler {
        RuleCompiler(sectionName: section, section: node, policySection: root[section], declaredInputs: declaredInputs, environment: environment,
                     policyCompiler: compiler)
    }

    private mutating func policyName() -> String? {
        guard let node = root["policy"] else {
            diagnostics.error(.missingKey, "the policy has no 'policy' name", at: root, hint: "add 'policy: my-policy' at the top")
            return nil
        }
        guard let name = node.scalar?.string else {
            diagnostics.error(.wrongType, "'policy' must be a name, found \(node.shapeDescription)", at: node)
            return nil
        }
        let scalars = Array(name.unicodeScalars)
        let valid = !scalars.isEmpty && scalars.enumerated().allSatisfy { index, scalar in
            let lowerOrDigit = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            return index == 0 ? lowerOrDigit : lowerOrDigit || scalar == "." || scalar == "_" || scalar == "-"
        }
        guard valid else {
            diagnostics.error(.invalidValue, "'\(name)' is not a valid policy name", at: node, hint: "use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit")
            return nil
        }
        return name
    }

    private mutating func evaluationMode() -> EvaluationMode {
        guard let node = root["mode"] else { return .collectAll }
        guard let text = node.scalar?.string, let mode = EvaluationMode(rawValue: text) else {
            diagnostics.error(.invalidValue, "'mode' must be fail_fast or collect_all, found \(node.shapeDescription)", at: node,
                              hint: node.scalar?.string.flatMap { Suggestion.didYouMean($0, among: EvaluationMode.allCases.map(\.rawValue)) })
            return .collectAll
        }
        return mode
    }

    private mutating func compileInputs() -> [InputDeclaration] {
        guard let node = root["inputs"] else { return [] }
        guard let pairs = node.pairs else {
            diagnostics.error(.wrongType, "'inputs' must map input names to their declarations, found \(node.shapeDescription)", at: node)
            return []
        }
        var inputs: [InputDeclaration] = []
        for pair in pairs {
            guard InputTemplate.isName(pair.name) else {
                diagnostics.error(.invalidValue, "'\(pair.name)' is not a valid input name", at: pair.value, hint: "use letters, digits, '_' and '-'")
                continue
            }
            var reader = makeReader(section: "inputs", node: node)
            var defaultValue: JSONValue?
            var required: Bool?
            var description: String?
            if pair.value.scalar?.value == .null {
                // `name:` with nothing after it declares a required input.
            } else if let fields = reader.mapping(pair.value, allowed: ["default", "required", "description"], what: "an input declaration") {
                for field in fields {
                    switch field.name {
                    case "default": defaultValue = reader.jsonValue(field.value, what: "an input default")
                    case "required": required = reader.bool(field.value, what: "'required'")
                    default: description = reader.literalString(field.value, what: "'description'")
                    }
                }
            }
            diagnostics.append(contentsOf: reader.diagnostics)
            if required == true, defaultValue != nil {
                diagnostics.error(.conflict, "input '\(pair.name)' is required and also has a default", at: pair.value, hint: "drop one of the two")
            }
            inputs.append(InputDeclaration(name: pair.name, defaultValue: defaultValue, required: required ?? (defaultValue == nil),
                                           description: description, location: pair.keyLocation))
        }
        return inputs
    }

    private mutating func tokenEnvelope(_ section: YAMLNode) -> TokenEnvelope {
        var reader = makeReader(section: "token", node: section)
        let envelope = reader.tokenEnvelope()
        diagnostics.append(contentsOf: reader.diagnostics)
        keySources += reader.keySources
        return envelope
    }

    /// Compiles a section's rules. Defaults (rules that run unless configured otherwise) apply to
    /// the policy's own section, not to fragments inside `rules:`.
    private mutating func compileSection(_ name: String, _ node: YAMLNode, includeDefaults: Bool) -> [CompiledRule] {
        guard let section = registry.sections[name] else { return [] }
        sectionsUsed.insert(name)
        var reader = makeReader(section: name, node: node)
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
        diagnostics.append(contentsOf: reader.diagnostics)
        keySources += reader.keySources
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
            let rules = fragments.flatMap { compileSection($0.name, $0.value, includeDefaults: false) }
            guard !rules.isEmpty else { return nil }
            if rules.count == 1, id == nil, message == nil { return .rule(rules[0]) }
            return .all(rules.map { .rule($0) }, composite("all_of"))
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
            return operators[0] == "all_of" ? .all(children, composite("all_of")) : .any(children, composite("any_of"))
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

    private mutating func compileOutputs() -> [OutputDeclaration] {
        guard let node = root["outputs"] else { return [] }
        guard let pairs = node.pairs else {
            diagnostics.error(.wrongType, "'outputs' must map output names to claim paths, found \(node.shapeDescription)", at: node)
            return []
        }
        var outputs: [OutputDeclaration] = []
        for pair in pairs {
            guard let text = pair.value.scalar?.string else {
                diagnostics.error(.wrongType, "output '\(pair.name)' must be a path such as claims.sub, found \(pair.value.shapeDescription)", at: pair.value)
                continue
            }
            let source: OutputDeclaration.Source?
            if text.hasPrefix("claims.") || text.hasPrefix("claims[") {
                source = ClaimPath(parsing: String(text.dropFirst(text.hasPrefix("claims.") ? 7 : 6))).map { .claim($0) }
            } else if text.hasPrefix("header.") {
                source = ClaimPath(parsing: String(text.dropFirst(7))).map { .header($0) }
            } else {
                source = nil
            }
            guard let source else {
                diagnostics.error(.invalidValue, "output '\(pair.name)': '\(text)' is not a claim path", at: pair.value,
                                  hint: "write claims.NAME, claims[\"https://...\"] or header.NAME")
                continue
            }
            outputs.append(OutputDeclaration(name: pair.name, source: source, location: pair.value.location))
        }
        return outputs
    }
}
