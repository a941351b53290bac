#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
@_spi(RuleAuthoring) import PolicyJOSE
#endif

/// The directories a compile may read files from: bases named by `extends`, policies named by
/// `bearer` or `embedded_tokens` (`{policy: …}`), and key files (`jwks_file`, `pem_file`, `x5c.trust`).
///
/// Policy files come from repositories whose reviewers may not read every line, so a policy is
/// untrusted input (SECURITY.md): it must not make the engine read, and then echo in a
/// diagnostic, a file it was not meant to (`extends: /proc/self/environ`). A path is admitted
/// only when, with every symbolic link resolved, it lies inside one of the roots and is a
/// regular file; a policy reference must also be a `.yaml` or `.yml` file. By default the root
/// is the directory of the policy being compiled, so a policy tree is self-contained.
public struct FileRoots: Sendable, Equatable {
    /// The root directories, as given.
    public let directories: [String]
    /// The same, with every link resolved, once: each admitted path is compared with these.
    private let canonicalDirectories: [String]

    /// Roots at `directories` (relative ones from the working directory); a directory that does
    /// not exist admits nothing.
    public init(_ directories: [String]) {
        self.directories = directories
        canonicalDirectories = directories.compactMap(Self.canonical)
    }

    /// The root of a compile that names none: the directory of `file` (the working directory for a bare name).
    public static func beside(_ file: String) -> FileRoots {
        let directory = PolicyPath.directory(of: file)
        return FileRoots([directory.isEmpty ? "." : directory])
    }

    /// What a path is read as.
    package enum Purpose: Sendable {
        /// A policy file (`extends`, a named policy): `.yaml` or `.yml` only.
        case policy
        /// A key, certificate or trust-anchor file.
        case keyFile
        /// A token, request or callback a policy test case reads from a file (`jwt: @FILE`).
        case testFixture
    }

    /// Why a path was not admitted; the message names the path as written and never its content.
    package struct Refusal: Error, Sendable, Equatable {
        /// `file_outside_roots`, `base_missing`, `key_source` or `file_unreadable`.
        package let code: DiagnosticCode
        /// What was refused, naming the path as written.
        package let message: String
        /// How to allow it, when there is a way.
        package let hint: String?
    }

    /// Checks that `path` may be read for `purpose`.
    package func admit(_ path: String, for purpose: Purpose) -> Refusal? {
        let what = switch purpose {
        case .policy: "policy file"
        case .keyFile: "key file"
        case .testFixture: "test fixture"
        }
        if purpose == .policy, !PolicyPath.isYAML(path) {
            return Refusal(code: .fileOutsideRoots, message: "\(path) is not a policy file: policy references name .yaml or .yml files",
                           hint: "name a policy by its name (looked up as NAME.yaml) or by a relative .yaml path")
        }
        let canonicalRoots = canonicalDirectories
        guard let resolved = Self.canonical(path) else {
            // A missing file: say so only when its written path lies inside a root.
            let lexical = PolicyPath.normalized(Self.absolute(path))
            let inside = canonicalRoots.contains { Self.contains($0, lexical) }
            return inside
                ? Refusal(code: purpose == .policy ? .baseMissing : purpose == .keyFile ? .keySource : .fileUnreadable, message: "the \(what) \(path) does not exist", hint: nil)
                : outside(path, what: what)
        }
        guard canonicalRoots.contains(where: { Self.contains($0, resolved) }) else { return outside(path, what: what) }
        var status = stat()
        guard stat(resolved, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return Refusal(code: .fileUnreadable, message: "\(path) is not a regular file", hint: purpose == .policy ? "name a .yaml policy file, not a directory" : nil)
        }
        return nil
    }

    private func outside(_ path: String, what: String) -> Refusal {
        Refusal(code: .fileOutsideRoots,
                message: "the \(what) \(path) is outside the policy roots (\(directories.joined(separator: ", "))); it is not read",
                hint: "a policy reads files only below its own directory; add a root with --policy-root (PolicyCompiler.fileRoots) to allow another")
    }

    /// `root` holds `path` (both canonical): equal, or a prefix ending at a path separator.
    static func contains(_ root: String, _ path: String) -> Bool {
        if root == "/" { return path.hasPrefix("/") }
        return path == root || path.utf8.starts(with: (root + "/").utf8)
    }

    /// The absolute path with every link resolved, or nil when it does not exist.
    static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" + path }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return PolicyPath.joined(String(decoding: bytes, as: UTF8.self), path)
    }
}
