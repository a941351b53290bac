@_spi(RuleAuthoring) import PolicyJOSE

/// Loads a policy file and the bases it `extends`, and merges them into one YAML tree.
///
/// Maps merge deeply with the child winning key by key; lists and scalars are replaced. Merged
/// nodes keep the location they were written at, so a rule inherited from a base is reported
/// at the base's file and line.
struct ExtendsResolver {
    let loader: YAMLLoader
    /// Where bare `extends` names are looked up: the directory of the policy being compiled.
    let policyDirectory: String
    /// Where bases may be read from.
    let roots: FileRoots
    var diagnostics = PolicyDiagnostics()
    /// Every file read, in the order read.
    var files: [String] = []
    /// Every source read, by display name: what lint comments and diagnostics' lines are read
    /// from, never the file a second time.
    var texts: [String: String] = [:]
    /// Sections that name the kind of subject a policy checks: the registry's.
    let subjectSections: Set<String>

    init(loader: YAMLLoader, policyDirectory: String, roots: FileRoots, subjectSections: Set<String>) {
        self.loader = loader
        self.policyDirectory = policyDirectory
        self.roots = roots
        self.subjectSections = subjectSections
    }

    mutating func load(file: String) -> YAMLNode? {
        load(file: file, stack: [])
    }

    mutating func load(text: String, file: String) -> YAMLNode? {
        load(file, stack: []) { () throws(PolicyDiagnostics) in text }
    }

    private mutating func load(file: String, stack: [String]) -> YAMLNode? {
        let loader = loader
        return load(file, stack: stack) { () throws(PolicyDiagnostics) in try loader.read(file: file) }
    }

    private mutating func load(_ file: String, stack: [String], _ read: () throws(PolicyDiagnostics) -> String) -> YAMLNode? {
        do {
            let text = try read()
            texts[file] = text
            let (node, warnings) = try loader.load(text: text, file: file, keepingDuplicateKeys: true)
            warnings.forEach { diagnostics.append($0) }
            files.append(file)
            return resolveBases(of: node, file: file, stack: stack + [file])
        } catch {
            diagnostics.append(contentsOf: error)
            return nil
        }
    }

    private mutating func resolveBases(of node: YAMLNode, file: String, stack: [String]) -> YAMLNode? {
        guard node.pairs != nil else {
            diagnostics.error(.wrongType, "a policy file must be a mapping of keys such as 'policy' and 'token', found \(node.shapeDescription)", at: node)
            return nil
        }
        guard let extendsNode = node["extends"] else { return node }
        let names: [YAMLNode]
        if extendsNode.scalar?.string != nil {
            names = [extendsNode]
        } else if let items = extendsNode.items, !items.isEmpty {
            names = items
        } else {
            diagnostics.error(.wrongType, "'extends' must be a policy name or a list of names, found \(extendsNode.shapeDescription)", at: extendsNode)
            return node
        }
        var merged: YAMLNode?
        for nameNode in names {
            guard let name = nameNode.scalar?.string, !name.isEmpty else {
                diagnostics.error(.wrongType, "'extends' entries must be policy names, found \(nameNode.shapeDescription)", at: nameNode)
                continue
            }
            let path = basePath(name, from: file)
            if let cycleStart = stack.firstIndex(of: path) {
                let cycle = (stack[cycleStart...] + [path]).joined(separator: " → ")
                diagnostics.error(.extendsCycle, "'extends' forms a cycle: \(cycle)", at: nameNode, hint: "remove one of the extends links")
                continue
            }
            if let refusal = roots.admit(path, for: .policy) {
                if refusal.code == .baseMissing {
                    diagnostics.error(.baseMissing, "\(file) extends '\(name)', but \(path) does not exist", at: nameNode,
                                      hint: "bare names are looked up in \(policyDirectory.isEmpty ? "the current directory" : policyDirectory); use a relative path for other places")
                } else {
                    diagnostics.error(refusal.code, refusal.message, at: nameNode, hint: refusal.hint)
                }
                continue
            }
            guard let base = load(file: path, stack: stack) else { continue }
            checkSubject(of: base, basePath: path, against: node, file: file, at: nameNode)
            let inheritable = YAMLNode(.mapping(base.pairs!.filter { !["policy", "description", "extends"].contains($0.name) }),
                                       location: base.location, path: "")
            merged = merged.map { ExtendsResolver.merge($0, inheritable) } ?? inheritable
        }
        guard let merged else { return node }
        return ExtendsResolver.merge(merged, node)
    }

    private mutating func checkSubject(of base: YAMLNode, basePath: String, against child: YAMLNode, file: String, at nameNode: YAMLNode) {
        let baseSubjects = Set(base.pairs!.map(\.name)).intersection(subjectSections)
        let childSubjects = Set(child.pairs!.map(\.name)).intersection(subjectSections)
        guard !baseSubjects.isEmpty, !childSubjects.isEmpty, baseSubjects.isDisjoint(with: childSubjects) else { return }
        diagnostics.error(.baseSubjectMismatch,
                          "\(file) checks \(childSubjects.sorted().joined(separator: ", ")) but its base \(basePath) checks \(baseSubjects.sorted().joined(separator: ", "))",
                          at: nameNode, hint: "a policy may only extend a policy for the same kind of subject")
    }

    func basePath(_ name: String, from file: String) -> String {
        if name.contains("/") || PolicyPath.isYAML(name) {
            return PolicyPath.joined(PolicyPath.directory(of: file), name)
        }
        return PolicyPath.joined(policyDirectory, "\(name).yaml")
    }

    /// Members of which a mapping holds exactly one: a key source's kind (`jwks_file`,
    /// `discovery`, ...). A child naming one replaces the base's, whichever it was; merged key
    /// by key, a child's `discovery` over a base's `jwks_file` would name two sources.
    static let oneOfMembers: [Set<String>] = [Set(RuleCompiler.keySourceKinds)]

    /// `child` over `base`: mappings merge key by key (recursively), anything else is replaced;
    /// of the members in `oneOfMembers`, the child's replace the base's.
    static func merge(_ base: YAMLNode, _ child: YAMLNode) -> YAMLNode {
        guard let basePairs = base.pairs, let childPairs = child.pairs else { return child }
        var result = basePairs
        for group in oneOfMembers where childPairs.contains(where: { group.contains($0.name) }) {
            result.removeAll { group.contains($0.name) }
        }
        for pair in childPairs {
            if let index = result.firstIndex(where: { $0.name == pair.name }) {
                result[index] = YAMLPair(name: pair.name, keyLocation: pair.keyLocation, value: merge(result[index].value, pair.value))
            } else {
                result.append(pair)
            }
        }
        return YAMLNode(.mapping(result), location: child.location, path: child.path)
    }
}
