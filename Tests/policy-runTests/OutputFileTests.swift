import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// What a command writes never destroys what is at the path: a device stays a device, a FIFO a
/// FIFO, a symlink a symlink (the text goes where it points), and a regular file is replaced
/// whole, so a process that holds the old one keeps it intact.
@Suite("Output files")
struct OutputFileTests {
    static let policy = "Policies/okta-id-token.yaml"

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func batch(output: String, summary: String? = nil) throws -> DecodeCommandTests.Run {
        try DecodeCommandTests.run(["batch", "--policy", policy, "--var", "nonce=n", "--input-format", "lines", "--output", output]
                                   + (summary.map { ["--summary-json", $0] } ?? []) + ["-"], stdin: "not-a-token\n")
    }

    @Test("batch --output and --summary-json to /dev/null, and to a character device made here, leave each a device")
    func devices() throws {
        #expect(Self.kind("/dev/null") == S_IFCHR)
        #expect(try Self.batch(output: "/dev/null", summary: "/dev/null").status == 1)
        #expect(Self.kind("/dev/null") == S_IFCHR, "/dev/null is no longer a character device")

        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let device = folder.appendingPathComponent("null").path
        // Device 1,3 (what /dev/null is), as glibc's makedev encodes it.
        guard mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
            print("skipped: mknod of a character device is not permitted here (\(String(cString: strerror(errno))))")
            return
        }
        #expect(try Self.batch(output: device, summary: device).status == 1)
        #expect(Self.kind(device) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["null"], "a temporary file was left beside it")
    }

    @Test("--summary-json /dev/stdout writes into the pipe standard output is, as --output - does")
    func standardOutputPipe() throws {
        // The test's `run` gives the command a pipe as standard output: /dev/stdout leads to
        // /proc/self/fd/1, a link to `pipe:[N]`, which names no file.
        let run = try Self.batch(output: "/dev/null", summary: "/dev/stdout")
        #expect(run.status == 1, "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(summary?["records"] as? Int == 1)
    }

    @Test("a symlink is written through to its target and kept; a regular file is replaced whole while a reader keeps the old one")
    func symlinkAndRegularFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("verdicts.jsonl").path
        let link = folder.appendingPathComponent("latest.jsonl").path
        #expect(FileManager.default.createFile(atPath: target, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o640]))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "verdicts.jsonl")
        let reader = try #require(FileHandle(forReadingAtPath: target))
        #expect(try Self.batch(output: link).status == 1)
        #expect(Self.kind(link) == S_IFLNK && Self.kind(target) == S_IFREG)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.contains(#""valid":false"#) && !written.contains("old"))
        #expect(String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) == "old\n", "the old file was changed under its reader")
        #expect((try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["verdicts.jsonl", "latest.jsonl"])
    }

    @Test("a FIFO is written into and stays a FIFO; a folder is a clear usage error")
    func fifoAndFolder() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("report.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader runs on a thread of its own, not the cooperative pool: `run` blocks its
        // thread until the command exits, and the command blocks opening the FIFO until a reader
        // opens it, so a reader waiting for a pool thread the tests hold would never come.
        let read = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let handle = FileHandle(forReadingAtPath: fifo)
            let text = String(decoding: handle?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            read.withLock { $0 = text }
            done.signal()
        }
        let test = try DecodeCommandTests.run(["test", "Policies/okta-id-token.test.yaml", "--format", "junit", "--output", fifo])
        #expect(test.status == 0, "\(test.stderr)")
        #expect(done.wait(timeout: .now() + 30) == .success, "the FIFO's reader did not finish")
        #expect(read.withLock { $0 }?.contains("<testsuite") == true)
        #expect(Self.kind(fifo) == S_IFIFO)

        let refused = try Self.batch(output: folder.path)
        #expect(refused.status == 2 && refused.stderr.contains("cannot write to '\(folder.path)': Is a directory"), "\(refused.stderr)")
    }
}
