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
/// `_` and `-` are taken, so no name the page sends leaves the directory. Saving replaces a
/// regular file (or makes a new one) as every file the tools write is replaced, whole and at
/// once; it never writes through a symlink, a FIFO or a device, since a playground's caller is
/// a browser page.
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

    /// The workspace of `directory`.
    ///
    /// - Throws: `Failure` when it is not a directory.
    package init(directory: String) throws(Failure) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure(code: "not_found", message: "\(directory) is not a directory")
        }
        self.directory = directory
    }

    /// The policies of the directory, by name.
    package func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let files = Set(names)
        return names.filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".test.yaml") }
            .map { String($0.dropLast(5)) }
            .filter(Self.isValidName)
            .sorted()
            .map { Entry(name: $0, hasTests: files.contains("\($0).test.yaml")) }
    }

    /// Whether `name` may name a policy file here: 1 to 100 letters, digits, `.`, `_` or `-`,
    /// starting with a letter or digit, and not a test file's.
    package static func isValidName(_ name: String) -> Bool {
        guard (1...100).contains(name.utf8.count), !name.hasSuffix(".test"), let first = name.unicodeScalars.first,
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

    /// The path of the test file of the policy `name`, nil when there is none.
    package func testPath(_ name: String) throws(Failure) -> String? {
        let path = PolicyPath.joined(directory, try validated(name) + ".test.yaml")
        return FileManager.default.fileExists(atPath: path) ? path : nil
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
        do {
            try OutputFile.write(text, to: path)
        } catch {
            throw Failure(code: "write_failed", message: error.description)
        }
        return path
    }

    private func validated(_ name: String) throws(Failure) -> String {
        _ = try policyPath(name)
        return name
    }

    private func text(of path: String, what: String) throws(Failure) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(code: "not_found", message: "\(what) cannot be read: \(path)") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        guard data.count <= maxFileBytes else { throw Failure(code: "too_large", message: "\(what) is larger than \(maxFileBytes) bytes") }
        guard let text = String(validating: data, as: UTF8.self) else { throw Failure(code: "not_utf8", message: "\(what) is not UTF-8") }
        return text
    }
}
