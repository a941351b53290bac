import Foundation
import PolicyRuntime
import PolicyJOSE

/// Batch input: the bytes as a log file (gzip when they start with its magic bytes), read line
/// by line within the limits and turned into records in both layouts. Every line is numbered in
/// order, none is longer than the cap; read again in blocks (as a batch reads a log), the lines
/// are the same; a line the scan reads holds the token and time the whole parse of it, in its
/// block, finds.
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
        guard let again = FileHandle(forReadingAtPath: file) else { return }
        defer { try? again.close() }
        let reader = LineReader(handle: handle, limits: limits)
        let blocks = LineReader(handle: again, limits: limits)
        var block = LineBlock(bytes: [], spans: [])
        var inBlock = 0
        let formats = [BatchRecordFormat(), BatchRecordFormat(layout: .lines)]
        var expected = 1
        while true {
            let line: LineReader.Line?
            do { line = try reader.next() } catch { return }
            if inBlock == block.spans.count {
                do { block = try blocks.nextLines(upTo: 3) } catch { return }
                inBlock = 0
            }
            guard let line else {
                invariant(block.spans.isEmpty, "blocks hold lines past the end")
                return
            }
            invariant(line.number == expected, "line \(line.number) after \(expected - 1)")
            invariant(line.bytes.count <= limits.maxLineBytes, "a line past the cap")
            invariant(inBlock < block.spans.count, "line \(line.number) is in no block")
            let span = block.spans[inBlock]
            invariant(span.number == line.number && span.tooLong == line.tooLong && block.line(span).bytes.elementsEqual(line.bytes),
                      "line \(line.number) read in a block differs")
            inBlock += 1
            expected += 1
            // The scan of the line as read alone, the whole parse of it as a part of its block:
            // both read it from where it starts, whatever its offset in the bytes that hold it.
            let inBlock = block.line(span)
            for format in formats {
                guard case let .token(token, time, _)? = format.record(line)?.content else {
                    _ = format.record(inBlock, scanning: false)
                    continue
                }
                guard case let .token(parsed, parsedTime, _)? = format.record(inBlock, scanning: false)?.content else {
                    invariant(false, "line \(line.number): the scan found a token the parse refuses")
                    return
                }
                invariant(token.text.utf8.elementsEqual(parsed.text.utf8) && time == parsedTime, "line \(line.number): the scan and the parse differ")
            }
        }
    }
}
