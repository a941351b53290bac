internal import Foundation
@_spi(RuleAuthoring) import PolicyJOSE

/// Turns policy files into compiled `Policy` values: load, resolve `extends`, check every key,
/// compile each rule through the registry, and order the chain.
///
/// Every problem is collected in one pass; the compile throws them all, sorted by location.
@_spi(RuleAuthoring) public struct PolicyCompiler: Sendable {
    /// The rules and settings each section accepts.
    public let registry: RuleRegistry
    /// The environment `${env:NAME}` reads (in `keys` only).
    public var environment: [String: String]
    /// How policy files are read (size and node limits).
    package var loader: YAMLLoader
    /// The directories the policy may read files from (bases, named policies, key files); nil
    /// means the directory of the policy file being compiled. See `FileRoots`.
    public var fileRoots: FileRoots?
    /// The cache every compiled policy fetches its remote keys through. Compile all of a
    /// process's policies with one cache so policies naming the same source share its keys.
    public var keyCache: JWKSCache
    /// Test keys that stand in for every key source the policy names; nil (the default) in
    /// production. See `KeyOverride`.
    package var keyOverride: KeyOverride?
    /// How deep this compile sits inside policies that name other policies (`bearer`, `embedded_tokens`).
    var nesting = 0
    /// The deepest chain of policies naming policies: deeper is taken for a cycle.
    static let maxNesting = 4

    /// `environment` defaults to the process environment; `keyCache` to a new cache.
    public init(registry: RuleRegistry, environment: [String: String]? = nil, keyCache: JWKSCache = JWKSCache(), fileRoots: FileRoots? = nil) {
        self.registry = registry
        self.fileRoots = fileRoots
        self.environment = environment ?? ProcessInfo.processInfo.environment
        loader = YAMLLoader()
        self.keyCache = keyCache
    }

    static let topLevelKeys = ["policy", "description", "extends", "mode", "inputs", "rules", "outputs"]
    static let combinatorKeys = ["all_of", "any_of", "not", "when", "then", "message", "id"]

    /// Compiles the policy in `file`; `extends` names are looked up beside it.
    public func compile(file: String) throws(PolicyDiagnostics) -> Policy {
        try compile(.file(file))
    }

    /// Compiles policy text; `file` names it in diagnostics and anchors relative paths.
    public func compile(text: String, file: String) throws(PolicyDiagnostics) -> Policy {
        try compile(.text(text, file: file))
    }

    /// Compiles `source`, keeping what each file read gave (`CompileReads`) with the policy, so
    /// that `Policy.recompiled` compiles it again from the same bytes. A compile inside another (a
    /// named policy) reads through the outer one's record.
    func compile(_ source: PolicySource) throws(PolicyDiagnostics) -> Policy {
        var compiler = rooted(beside: source.file)
        let outermost = compiler.loader.reads == nil
        if outermost { compiler.loader.reads = CompileReads() }
        var resolver = compiler.extendsResolver(for: source.file)
        let root = switch source {
        case let .file(file): resolver.load(file: file)
        case let .text(text, file): resolver.load(text: text, file: file)
        }
        var policy = try compiler.finish(root, resolver: resolver)
        if outermost { policy.recompiling = PolicyRecompiling(compiler: compiler, source: source) }
        return policy
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

    /// Runs the named stages on a loaded tree: (1) load and (2) resolve `extends` happened in
    /// `resolver`; then (3) the declarations, (4) the token settings, (5) the rules, (6) their
    /// order, and (7) the `Policy`. Each stage reports into one set of diagnostics.
    private func finish(_ root: YAMLNode?, resolver: ExtendsResolver) throws(PolicyDiagnostics) -> Policy {
        var diagnostics = resolver.diagnostics
        // A duplicate key leaves the rest of the file readable: compile on, so its other problems
        // are reported in the same pass. Any other loading error stops here.
        guard let root, diagnostics.errors.allSatisfy({ $0.code == .duplicateKey }) else { throw diagnostics.attachingSourceLines(from: resolver.texts) }
        let sectionNames = registry.sections.keys.sorted()
        var reader = reader(section: "", node: root, root: root, declaredInputs: [])
        _ = reader.mapping(root, allowed: PolicyCompiler.topLevelKeys + sectionNames, what: "a policy")
        diagnostics.append(contentsOf: reader.diagnostics)

        let declarations = PolicyDeclarations.read(root, compiler: self, diagnostics: &diagnostics)
        let declaredInputs = Set(declarations.inputs.map(\.name))
        var rules = RuleStage(compiler: self, root: root, declaredInputs: declaredInputs)
        rules.readTokenSettings()
        let sectionRules = rules.sectionRules()
        let compositions = rules.compositions()
        if rules.sectionsUsed.isEmpty {
            rules.diagnostics.error(.missingKey, "the policy checks nothing: it needs a section such as 'token'", at: root,
                                    hint: "add 'token:' with at least 'algorithms' and 'keys'")
        }
        diagnostics.append(contentsOf: rules.diagnostics)
        let chain = RuleOrdering.chain(sectionRules: sectionRules, compositions: compositions)
        let policyChain = ChainNode.all(ChainChildren(chain), .init(kind: "policy", location: root.location))
        let used = Set(policyChain.rules.flatMap(\.inputs)).union(rules.inputsPassedOn)
        for input in declarations.inputs where !used.contains(input.name) {
            diagnostics.append(Diagnostic(.warning, .inputUnused, "the input '\(input.name)' is declared but no rule reads it", at: input.location,
                                          path: "inputs.\(input.name)", hint: "remove it, or refer to it as ${\(input.name)}"))
        }

        let suppression = LintSuppression(texts: resolver.texts)
        let warnings = suppression.unsilenced(diagnostics.warnings).map { $0.attachingSourceLine(from: resolver.texts) }
        guard let name = declarations.name, !diagnostics.hasErrors else {
            throw PolicyDiagnostics(diagnostics.errors + warnings).attachingSourceLines(from: resolver.texts)
        }
        let policy = Policy(name: name, description: declarations.description, mode: declarations.mode, inputs: declarations.inputs,
                            outputs: declarations.outputs, envelope: rules.tokenSettings?.envelope ?? .standard,
                            algorithms: rules.tokenSettings.map { $0.tokensAreUnsigned ? [] : $0.algorithms ?? [] } ?? [],
                            root: policyChain, files: resolver.files, warnings: [],
                            keySources: rules.keySources, keyCache: keyCache,
                            subjects: sectionNames.filter { rules.sectionsUsed.contains($0) && registry.sections[$0]!.needsSubject })
        return policy.withWarnings(warnings)
    }

    /// A reader for `node` in `section`, whose fragments inherit the policy's section settings.
    func reader(section: String, node: YAMLNode, root: YAMLNode, declaredInputs: Set<String>) -> RuleCompiler {
        var reader = RuleCompiler(sectionName: section, section: node, policySection: root[section], declaredInputs: declaredInputs,
                                  inputDeclarations: root["inputs"], environment: environment, policyCompiler: self)
        reader.policyJudgesToken = root["token"] != nil
        return reader
    }
}
