@_spi(RuleAuthoring) import PolicyJOSE

/// File paths as policies write them, handled lexically on their text.
///
/// Foundation's `NSString` path methods trap on Linux for some short paths (`x`, `-`, `a/`), and a
/// path from a policy file is untrusted input: everything here is plain string work that cannot
/// fail.
package enum PolicyPath {
    /// The directory part of `path`: `""` for a bare name, `/` for a file at the root.
    package static func directory(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        if slash == text.startIndex { return "/" }
        var directory = text[..<slash]
        while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
        return String(directory)
    }

    /// `relative` read from `directory`: itself when absolute or when `directory` is empty.
    package static func joined(_ directory: String, _ relative: String) -> String {
        if relative.hasPrefix("/") || directory.isEmpty { return relative }
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    /// `path` with `.` segments, repeated slashes and `..` segments resolved on the text alone
    /// (`a/./b//../c` is `a/c`); `..` above the root of an absolute path stays at the root.
    package static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..":
                if let last = segments.last, last != ".." { segments.removeLast() } else if !absolute { segments.append(segment) }
            default: segments.append(segment)
            }
        }
        let joined = segments.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// Whether `path` names a YAML file by its extension.
    package static func isYAML(_ path: String) -> Bool {
        path.hasSuffix(".yaml") || path.hasSuffix(".yml")
    }
}
