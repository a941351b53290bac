import Foundation
import PolicyRuntime
import PolicyJOSE

/// Batch input: the bytes as a log file (gzip when they start with its magic bytes), read line
/// by line within the limits and turned into records in both layouts. Every line is numbered in
/// order, none is longer than the cap.
enum BatchFuzzing {
    /// The log file, in memory-backed /dev/shm when there is one: `FileManager.createFile`
    /// syncs to disk, and a stalled disk once held an input for twelve seconds.
    static let file = (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()) + "policy-fuzz-batch-\(getpid()).log"
    static let limits = BatchInputLimits(maxLineBytes: 4096, maxDecompressedBytes: 1 << 22, maxCompressionRatio: 100)

    static func run(_ data: [UInt8]) {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == data.count, let handle = FileHandle(forReadingAtPath: file) else { return }
        defer { try? handle.close() }
        let reader = LineReader(handle: handle, limits: limits)
        let formats = [BatchRecordFormat(), BatchRecordFormat(layout: .lines)]
        var expected = 1
        while true {
            let line: LineReader.Line?
            do { line = try reader.next() } catch { return }
            guard let line else { return }
            invariant(line.number == expected, "line \(line.number) after \(expected - 1)")
            invariant(line.bytes.count <= limits.maxLineBytes, "a line past the cap")
            expected += 1
            for format in formats { _ = format.record(line) }
        }
    }
}
