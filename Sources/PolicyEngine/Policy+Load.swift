@_spi(RuleAuthoring) public import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE
internal import Rules

extension Policy {
    /// Compiles the policy file with the built-in rules.
    ///
    /// - Parameters:
    ///   - file: The policy's path; its bases and key files are read relative to it.
    ///   - environment: What `${env:NAME}` reads in a `secret`; the process environment by default.
    ///   - keyCache: Where remote keys are cached: the process's `JWKSCache.shared` unless given
    ///     another, so policies naming the same source share its fetches.
    ///   - fileRoots: The directories the policy may read bases and key files from; by default
    ///     the policy file's own directory.
    /// - Returns: The compiled policy, immutable and shareable across threads; its `warnings`
    ///   say what `lint` would.
    /// - Throws: `PolicyDiagnostics`: every problem of the file, each located at
    ///   `file:line:column` with a hint.
    public static func load(file: String, environment: [String: String]? = nil, keyCache: JWKSCache = .shared,
                            fileRoots: FileRoots? = nil) throws(PolicyDiagnostics) -> Policy {
        try PolicyCompiler(registry: BuiltinRules.registry, environment: environment, keyCache: keyCache, fileRoots: fileRoots).compile(file: file)
    }

    /// Compiles policy text with the built-in rules; `file` names it in diagnostics and anchors
    /// its relative paths (and, unless `fileRoots` says otherwise, the one directory it may read from).
    public static func load(text: String, file: String = "<policy>", environment: [String: String]? = nil,
                            keyCache: JWKSCache = .shared, fileRoots: FileRoots? = nil) throws(PolicyDiagnostics) -> Policy {
        try PolicyCompiler(registry: BuiltinRules.registry, environment: environment, keyCache: keyCache, fileRoots: fileRoots)
            .compile(text: text, file: file)
    }
}

extension RuleRegistry {
    /// Every built-in rule, by section: what `Policy.load` compiles with, and what a custom
    /// rule extends (`RuleRegistry.builtin.registering(MyRule.self, in: "token")`, then
    /// `PolicyCompiler(registry:)`).
    @_spi(RuleAuthoring) public static var builtin: RuleRegistry { BuiltinRules.registry }
}
