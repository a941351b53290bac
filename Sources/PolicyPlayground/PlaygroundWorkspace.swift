internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif
@_spi(RuleAuthoring) package import PolicyRuntime
internal import PolicyCommandLine

/// The directory a playground opens: its policies, each with its test file, read on demand and
/// written only when the page asks to save one.
///
/// A policy is named by its file's name without `.yaml`, and only names of letters, digits, `.`,
/// `_` and `-` are taken, so no name the page sends leaves the directory. A file is read only
/// when, its links resolved, it is a regular file inside the directory (as a compile admits a
/// key file, `FileRoots`), and it is opened without waiting, so a FIFO put there in between
/// cannot hold a thread. Saving writes a new file in the directory and renames it over the
/// policy's (`OutputFile.replaceRegularFile`): it never writes through a link, and refuses to
/// replace anything but a regular file, since a playground's caller is a browser page.
package struct PlaygroundWorkspace: Sendable {
    /// A policy of the directory.
    package struct Entry: Sendable, Equatable {
        /// The file's name without `.yaml`.
        package let name: String
        /// Whether `NAME.test.yaml` is beside it.
        package let hasTests: Bool
    }

    /// Why a name or a file is refused.
    package struct Failure: Error, Sendable, Equatable {
        /// A stable code: `invalid_name`, `not_found`, `too_large`, `not_utf8`, `exists`, `not_a_file`, `write_failed`.
        package let code: String
        package let message: String
    }

    /// The directory, as given.
    package let directory: String
    /// The largest policy file read or written, the loader's bound for any policy file.
    package let maxFileBytes = YAMLLoader().maxFileBytes
    /// What may be read: regular files inside the directory, links resolved.
    private let roots: FileRoots

    /// The workspace of `directory`.
    ///
    /// - Throws: `Failure` when it is not a directory.
    package init(directory: String) throws(Failure) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure(code: "not_found", message: "\(directory) is not a directory")
        }
        self.directory = directory
        roots = FileRoots([directory])
    }

    /// The policies of the directory, by name: its regular `*.yaml` files but tests.
    package func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }
            .map { String($0.dropLast(5)) }
            .filter { Self.isValidName($0) && readable(PolicyPath.joined(directory, $0 + ".yaml")) }
            .sorted()
            .map { Entry(name: $0, hasTests: readable(PolicyPath.joined(directory, $0 + ".test.yaml"))) }
    }

    /// Whether `name` may name a policy file here: 1 to 100 letters, digits, `.`, `_` or `-`,
    /// starting with a letter or digit, and not a test file's (`.test` in any case: on a file
    /// system that ignores case, `X.TEST.yaml` is the test file).
    package static func isValidName(_ name: String) -> Bool {
        guard (1...100).contains(name.utf8.count), !name.lowercased().hasSuffix(".test"), let first = name.unicodeScalars.first,
              ("0"..."9").contains(first) || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }
    }

    /// The path of the policy `name`.
    package func policyPath(_ name: String) throws(Failure) -> String {
        guard Self.isValidName(name) else {
            throw Failure(code: "invalid_name", message: "a policy's name is letters, digits, '.', '_' and '-' (up to 100), got '\(InertText.escaped(String(name.prefix(100))))'")
        }
        return PolicyPath.joined(directory, name + ".yaml")
    }

    /// The path of the test file of the policy `name`, nil when there is none to read.
    package func testPath(_ name: String) throws(Failure) -> String? {
        let path = PolicyPath.joined(PolicyPath.directory(of: try policyPath(name)), name + ".test.yaml")
        return readable(path) ? path : nil
    }

    /// The text of the policy `name`, and of its test file.
    package func read(_ name: String) throws(Failure) -> (policy: String, tests: String?) {
        let policy = try text(of: try policyPath(name), what: "policy \(name)")
        let tests = try testPath(name).map { path throws(Failure) in try text(of: path, what: "the test file of \(name)") }
        return (policy, tests)
    }

    /// Writes `text` as the policy `name`, replacing a regular file whole (unless `replacing`
    /// is false: a new policy never takes the place of one already there); returns the path.
    package func save(_ name: String, text: String, replacing: Bool = true) throws(Failure) -> String {
        let path = try policyPath(name)
        guard text.utf8.count <= maxFileBytes else {
            throw Failure(code: "too_large", message: "a policy file is at most \(maxFileBytes) bytes")
        }
        var info = stat()
        let exists = lstat(path, &info) == 0
        if exists, !replacing {
            throw Failure(code: "exists", message: "\(path) exists already: a new policy is saved under a name of its own (change its 'policy:')")
        }
        if exists, info.st_mode & S_IFMT != S_IFREG {
            throw Failure(code: "not_a_file", message: "\(path) is not a regular file (a link, a FIFO or a device): the playground saves only over regular files")
        }
        // A new file renamed over the name itself: never a file a link put there in between points to.
        do {
            try OutputFile.replaceRegularFile(text, at: path)
        } catch {
            throw Failure(code: "write_failed", message: "\(path) cannot be written: \(error.reason)")
        }
        return path
    }

    /// Whether `path` is a regular file inside the directory, its links resolved.
    private func readable(_ path: String) -> Bool {
        roots.admit(path, for: .policy) == nil
    }

    private func text(of path: String, what: String) throws(Failure) -> String {
        if let refusal = roots.admit(path, for: .policy) {
            throw Failure(code: refusal.code == .fileOutsideRoots || refusal.code == .fileUnreadable ? "not_a_file" : "not_found", message: refusal.message)
        }
        // Opened without waiting, and checked again once open: the name may have changed since.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(code: "not_found", message: "\(what) cannot be read: \(path)") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(code: "not_a_file", message: "\(path) is not a regular file")
        }
        guard Int(info.st_size) <= maxFileBytes else { throw Failure(code: "too_large", message: "\(what) is larger than \(maxFileBytes) bytes") }
        // One byte past its size: a file that grew since is seen to.
        var bytes = [UInt8](repeating: 0, count: min(Int(info.st_size), maxFileBytes) + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            guard count > 0 else { break }
            filled += count
        }
        guard filled <= maxFileBytes else { throw Failure(code: "too_large", message: "\(what) is larger than \(maxFileBytes) bytes") }
        guard let text = String(validating: bytes[..<filled], as: UTF8.self) else { throw Failure(code: "not_utf8", message: "\(what) is not UTF-8") }
        return text
    }
}
