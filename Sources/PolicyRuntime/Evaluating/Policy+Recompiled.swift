/// What a policy was compiled from: a file, or text named as one.
enum PolicySource: Sendable {
    case file(String)
    case text(String, file: String)

    /// The file the source is, or is named as: what anchors its relative paths.
    var file: String {
        switch self {
        case let .file(file), let .text(_, file): file
        }
    }
}

/// A compiler and source that make a policy again, reading through the first compile's
/// record (`CompileReads`): a copy judges as the original does, whatever its files hold now.
/// A class, so that the policy holding it copies one reference, not a compiler's fields.
final class PolicyRecompiling: Sendable {
    let compiler: PolicyCompiler
    let source: PolicySource

    init(compiler: PolicyCompiler, source: PolicySource) {
        self.compiler = compiler
        self.source = source
    }

    /// A new compile of the source, or nil when it failed or read a file the first did not.
    func compile() -> Policy? {
        var compiler = compiler
        let reads = compiler.loader.reads?.replay()
        compiler.loader.reads = reads
        guard let copy = try? compiler.compile(source), reads?.missed == false else { return nil }
        return copy
    }
}

extension Policy {
    /// A policy that judges as this one does, compiled again from the bytes this one's compile
    /// read: objects of its own, rules, keys and names; this one where that cannot be done (a
    /// policy not compiled from a source, a compile that fails or reads a file the first did not).
    ///
    /// For work on several cores at once: a policy shared by threads on two cores has each
    /// rule's, key's and string's reference count written from both, and every such write takes
    /// the cache line from the other core (a few per cent of a two-job batch of HS256 tokens'
    /// CPU time, Benchmarks/RESULTS.md).
    package func recompiled() -> Policy {
        recompiling?.compile() ?? self
    }
}
