import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// What a command writes never destroys what is at the path: a device stays a device, a FIFO a
/// FIFO, a symlink a symlink (the text goes where it points), and a regular file keeps its inode.
@Suite("Output files")
struct OutputFileTests {
    static let policy = "Policies/okta-id-token.yaml"
    static let token = "Policies/examples/sample-id-token.jwt"

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }

    static func inode(_ path: String) -> ino_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_ino : 0
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("batch --output and --summary-json to /dev/null leave the device a device")
    func device() throws {
        #expect(Self.kind("/dev/null") == S_IFCHR)
        let batch = try DecodeCommandTests.run(["batch", "--policy", Self.policy, "--var", "nonce=n", "--input-format", "lines",
                                                "--output", "/dev/null", "--summary-json", "/dev/null", "-"], stdin: "not-a-token\n")
        #expect(batch.status == 1, "\(batch.stderr)")
        #expect(Self.kind("/dev/null") == S_IFCHR, "/dev/null is no longer a character device")
    }

    @Test("a symlink is written through, a regular file keeps its inode, a FIFO is written into, a folder is a clear error")
    func inPlace() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("verdicts.jsonl").path
        let link = folder.appendingPathComponent("latest.jsonl").path
        FileManager.default.createFile(atPath: target, contents: Data("old\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let inode = Self.inode(target)
        let batch = try DecodeCommandTests.run(["batch", "--policy", Self.policy, "--var", "nonce=n", "--input-format", "lines", "--output", link, "-"],
                                               stdin: "not-a-token\n")
        #expect(batch.status == 1)
        #expect(Self.kind(link) == S_IFLNK && Self.inode(target) == inode)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.contains(#""valid":false"#) && !written.contains("old"))

        let fifo = folder.appendingPathComponent("report.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> String in
            let handle = FileHandle(forReadingAtPath: fifo)
            return String(decoding: handle?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        }
        let test = try DecodeCommandTests.run(["test", "Policies/okta-id-token.test.yaml", "--format", "junit", "--output", fifo])
        #expect(test.status == 0, "\(test.stderr)")
        #expect(await reader.value.contains("<testsuite"))
        #expect(Self.kind(fifo) == S_IFIFO)

        let refused = try DecodeCommandTests.run(["batch", "--policy", Self.policy, "--var", "nonce=n", "--input-format", "lines", "--output", folder.path, "-"],
                                                 stdin: "not-a-token\n")
        #expect(refused.status == 2 && refused.stderr.contains("cannot write to '\(folder.path)': Is a directory"), "\(refused.stderr)")
    }
}
