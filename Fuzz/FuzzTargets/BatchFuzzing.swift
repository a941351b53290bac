import Foundation
import PolicyEngine

/// Batch input: the bytes as a log file (gzip when they start with its magic bytes), read line
/// by line within the limits and turned into records in both layouts. Every line is numbered in
/// order, none is longer than the cap.
enum BatchFuzzing {
    static let file = NSTemporaryDirectory() + "policy-fuzz-batch-\(getpid()).log"
    static let limits = BatchInputLimits(maxLineBytes: 4096, maxDecompressedBytes: 1 << 22, maxCompressionRatio: 100)

    static func run(_ data: [UInt8]) {
        guard FileManager.default.createFile(atPath: file, contents: Data(data)), let handle = FileHandle(forReadingAtPath: file) else { return }
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
