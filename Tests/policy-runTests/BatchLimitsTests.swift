import Foundation
import PolicyRuntime
import PolicyJOSE
import Testing

/// What a hostile log may cost `policy-run batch`: gzip expansion is capped by ratio and size,
/// summary tables stay bounded whatever the issuers and kids, and a live pipe is judged line by
/// line as it arrives.
@Suite("policy-run batch limits")
final class BatchLimitsTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// `text` gzip-compressed by the system's gzip.
    func gzip(_ text: Data, name: String) throws -> String {
        let plain = folder.appendingPathComponent(name)
        try text.write(to: plain)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-9", "-f", plain.path]
        try process.run()
        process.waitUntilExit()
        return plain.path + ".gz"
    }

    static let lines = ["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n", "--input-format", "lines", "--output", "/dev/null"]

    @Test("a gzip of newlines (a decompression bomb) stops at once with the ratio named; the size cap holds too")
    func decompressionBomb() throws {
        let bomb = try gzip(Data(repeating: 0x0A, count: 64 << 20), name: "bomb")
        let started = Date()
        let run = try DecodeCommandTests.run(Self.lines + [bomb])
        #expect(run.status == 2 && run.stderr.contains("expands more than 100 times") && run.stderr.contains("--max-gzip-ratio"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        let capped = try DecodeCommandTests.run(Self.lines + ["--max-gzip-ratio", "100000", "--max-decompressed-bytes", "1000000", bomb])
        #expect(capped.status == 2 && capped.stderr.contains("decompresses past 1000000 bytes"), "\(capped.stderr)")
        let usage = try DecodeCommandTests.run(Self.lines + ["--max-gzip-ratio", "0", bomb])
        #expect(usage.status == 2 && usage.stderr.contains("must be positive"))
    }

    @Test("unique 20 KB kids: the summary keeps at most 1,000 rows of at most 256 bytes, counts the rest, and states its limits")
    func boundedSummary() throws {
        let tokens = (0..<1500).map { index -> String in
            let header = #"{"alg":"RS256","kid":"\#(index)-\#(String(repeating: "k", count: 20_000))"}"#
            return Data(header.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "") + ".e30.AAAA"
        }
        let log = folder.appendingPathComponent("kids.log")
        try (tokens.joined(separator: "\n") + "\n").write(to: log, atomically: true, encoding: .utf8)
        let summaryFile = folder.appendingPathComponent("summary.json")
        let run = try DecodeCommandTests.run(Self.lines + ["--summary-json", summaryFile.path, log.path])
        #expect(run.status == 1)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: summaryFile)) as! [String: Any]
        let kids = try #require(summary["kids"] as? [String: Int])
        #expect(kids.count <= 1000 && kids.keys.allSatisfy { $0.utf8.count <= 256 })
        #expect(kids.values.reduce(0, +) + (summary["kids_not_listed"] as? Int ?? 0) == 1500)
        #expect((summary["limits"] as? [String: Int])?["max_gzip_ratio"] == 100)
        #expect(run.stderr.contains("others not kept"), "\(run.stderr)")
    }

    @Test("batch - on a live pipe writes a line's verdict before the pipe closes")
    func livePipe() throws {
        let token = try String(contentsOf: DecodeCommandTests.packageRoot.appendingPathComponent("Policies/examples/sample-id-token.jwt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let process = Process()
        process.executableURL = try DecodeCommandTests.binary()
        process.arguments = ["batch", "--policy", "Policies/okta-id-token.yaml", "--var", "nonce=n", "--input-format", "lines", "--jobs", "1", "-"]
        process.currentDirectoryURL = DecodeCommandTests.packageRoot
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((token + "\n").utf8))
        // The verdict must come while the pipe is still open: read it on a thread, wait at most 20 s.
        let received = DispatchSemaphore(value: 0)
        let line = LockedLine()
        Thread.detachNewThread {
            var bytes: [UInt8] = []
            while let chunk = try? output.fileHandleForReading.read(upToCount: 1), let byte = chunk.first {
                if byte == 0x0A { break }
                bytes.append(byte)
            }
            line.set(String(decoding: bytes, as: UTF8.self))
            received.signal()
        }
        let answered = received.wait(timeout: .now() + 20) == .success
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(answered, "no verdict before the pipe closed")
        #expect(line.get().contains(#""line":1"#), "\(line.get())")
    }

    final class LockedLine: @unchecked Sendable {
        private let lock = NSLock()
        private var value = ""
        func set(_ text: String) { lock.withLock { value = text } }
        func get() -> String { lock.withLock { value } }
    }
}
