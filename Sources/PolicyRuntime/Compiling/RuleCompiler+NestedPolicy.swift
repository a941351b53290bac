@_spi(RuleAuthoring) import PolicyJOSE

extension RuleCompiler {
    /// Compiles the policy a rule names (`bearer: {policy: NAME}`): a bare name is looked up
    /// beside the naming file, a path relative to it. Its problems are reported at `node`; its
    /// key sources join this policy's, so they are listed and fetched with it.
    public mutating func namedPolicy(_ name: String, at node: YAMLNode) -> Policy? {
        let isPath = name.contains("/") || PolicyPath.isYAML(name)
        let path = PolicyPath.joined(PolicyPath.directory(of: node.location.file), isPath ? name : "\(name).yaml")
        guard admitFile(path, for: .policy, at: node) else { return nil }
        return nestedPolicy(at: node, what: "policy '\(name)' (\(path))") { compiler throws(PolicyDiagnostics) in try compiler.compile(file: path) }
    }

    /// Compiles an inline section (`bearer: {token: {...}}`) as a policy of its own named `name`,
    /// which declares this policy's inputs: `${name}` inside it means what it means around it.
    public mutating func inlinePolicy(section: String, _ sectionNode: YAMLNode, name: String, at node: YAMLNode) -> Policy? {
        var pairs = [
            YAMLPair(name: "policy", keyLocation: node.location, value: YAMLNode(.scalar(YAMLScalar(text: name, isPlain: false)), location: node.location, path: "policy")),
            YAMLPair(name: section, keyLocation: sectionNode.location, value: sectionNode),
        ]
        if let inputDeclarations { pairs.append(YAMLPair(name: "inputs", keyLocation: inputDeclarations.location, value: inputDeclarations)) }
        let root = YAMLNode(.mapping(pairs), location: node.location, path: "")
        return nestedPolicy(at: node, what: "the inline \(section) section") { compiler throws(PolicyDiagnostics) in
            try compiler.compile(root: root, file: node.location.file)
        }
    }

    private mutating func nestedPolicy(at node: YAMLNode, what: String, _ compile: (PolicyCompiler) throws(PolicyDiagnostics) -> Policy) -> Policy? {
        var nested = policyCompiler
        nested.nesting += 1
        guard nested.nesting <= PolicyCompiler.maxNesting else {
            error(.invalidValue, "\(what) nests policies more than \(PolicyCompiler.maxNesting) deep; is there a cycle?", at: node)
            return nil
        }
        do {
            let policy = try compile(nested)
            keySources += policy.keySources
            return policy
        } catch {
            let first = error.sorted.first { $0.severity == .error }
            self.error(.invalidValue, "\(what) does not compile" + (first.map { ": \($0.location): \($0.message)" } ?? ""), at: node)
            return nil
        }
    }
}
