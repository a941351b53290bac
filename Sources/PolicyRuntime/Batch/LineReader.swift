package import Foundation
internal import PolicyCrypto
#if canImport(Glibc)
internal import Glibc
@_spi(RuleAuthoring) import PolicyJOSE
#endif

/// Reads an input line by line in bounded memory: a file or standard input, gzip-compressed or
/// not (recognised by its magic bytes, whatever the file is called).
///
/// A line longer than `maxLineBytes` is not buffered whole: it comes back cut, marked
/// `tooLong`, and reading resumes after its end. Reads return what the input has (a live pipe
/// is judged line by line as it arrives), and gzip input is held to `BatchInputLimits`.
package final class LineReader {
    /// One line, without its `\n` (or `\r\n`).
    package struct Line: Sendable {
        /// 1-based.
        package let number: Int
        /// The line's bytes, cut at `maxLineBytes`: an array of their own (`next`), or a part of
        /// a block of lines (`LineBlock.line`).
        package let bytes: ArraySlice<UInt8>
        /// Whether the line was longer than `maxLineBytes` and was cut.
        package let tooLong: Bool
    }

    /// The longest line kept by default: 1 MiB.
    package static let defaultMaxLineBytes = 1 << 20

    private let handle: FileHandle
    private let limits: BatchInputLimits
    private var maxLineBytes: Int { limits.maxLineBytes }
    private var decompressed: Int64 = 0
    private var inflater: GzipInflater?
    private var sniffed = false
    /// The bytes read and not yet returned are `buffer[start..<end]`; the rest is room that a
    /// read of a plain input lands in directly. Unchecked at run time: only this reader's own
    /// methods touch it, none while another holds it, and the check cost about 85 instructions a
    /// line (callgrind, a repeated HS256 record).
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    /// Whether a block of lines holds `buffer` (`nextLines`): its bytes are then not written
    /// again, and the next read lands in a buffer of its own (`fill`).
    private var bufferLent = false
    /// Where the first read lands, to be sniffed for gzip, and each read of gzip input, to be
    /// inflated into `buffer`.
    private var chunk: [UInt8] = []
    private var start = 0
    private var end = 0
    private var endOfInput = false
    private var lineNumber = 0
    private var skippingLongLine = false
    /// Bytes read from the input so far (compressed bytes for gzip), for progress.
    package private(set) var bytesRead = 0

    /// Whether the input is a pipe, socket or terminal, which may hold back what comes next.
    private let isStream: Bool

    /// A reader of `handle` (a file, a pipe, standard input) within `limits`.
    ///
    /// - Parameter decompress: whether input that starts as gzip does is read as gzip; false
    ///   for a caller that decompressed already, whose first line may start with any bytes.
    package init(handle: FileHandle, limits: BatchInputLimits = .standard, decompress: Bool = true) {
        self.handle = handle
        self.limits = limits
        sniffed = !decompress
        var status = stat()
        isStream = fstat(handle.fileDescriptor, &status) == 0 && status.st_mode & S_IFMT != S_IFREG
    }

    /// Whether `next()` may wait for the input: it is a stream, no whole line is buffered, and
    /// the stream has nothing more waiting.
    ///
    /// What the stream has waiting is read here first, without waiting: a pipe that a fast
    /// writer keeps full (`cat log | policy-run batch -`) is then judged in whole chunks on every
    /// core, as a file is, while a writer that pauses, even in the middle of a line, still has
    /// the lines before the pause judged at once. A read error met here is thrown by `next()`.
    package var mayBlock: Bool {
        guard isStream else { return false }
        while !endOfInput, deferredError == nil, !lineBuffered {
            guard inputWaiting() else { return true }
            // The rest of a line being skipped is dropped as it comes, as `next()` drops it: a
            // writer that keeps a line without an end coming must not grow the buffer.
            if skippingLongLine { (start, end) = (0, 0) }
            do { try fill() } catch { deferredError = error }
        }
        return false
    }

    /// The bytes the buffer has room for, for tests of its bound.
    var bufferCapacity: Int { buffer.count }

    /// A read error `mayBlock` or `nextLines` met, for the next read to throw.
    private var deferredError: BatchInputError?

    /// Whether `next()` can return a line from the buffer: a whole one, or one already past
    /// `maxLineBytes` to be cut.
    private var lineBuffered: Bool {
        buffer[start..<end].contains(UInt8(ascii: "\n")) || (!skippingLongLine && end - start > maxLineBytes)
    }

    /// Whether a read would return at once: bytes, or the end of the input, are waiting.
    private func inputWaiting() -> Bool {
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// A reader with the standard limits but `maxLineBytes`.
    package convenience init(handle: FileHandle, maxLineBytes: Int) {
        self.init(handle: handle, limits: BatchInputLimits(maxLineBytes: maxLineBytes))
    }

    /// The next line, or nil at the end of the input.
    package func next() throws(BatchInputError) -> Line? {
        try nextLine().map { Line(number: $0.number, bytes: $0.bytes[...], tooLong: $0.tooLong) }
    }

    /// `next()`, its bytes an array of their own.
    private func nextLine() throws(BatchInputError) -> (number: Int, bytes: [UInt8], tooLong: Bool)? {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        while true {
            if let newline = newlineIndex() {
                if skippingLongLine {
                    (start, skippingLongLine) = (newline + 1, false)
                    continue
                }
                let line = takeLine(endingAt: newline)
                return (line.number, copy(line.range), line.tooLong)
            }
            if end - start > maxLineBytes, !skippingLongLine {
                lineNumber += 1
                let cut = copy(start..<start + maxLineBytes)
                (start, end) = (0, 0)
                skippingLongLine = true
                return (lineNumber, cut, true)
            }
            if skippingLongLine { (start, end) = (0, 0) }
            if endOfInput {
                guard start < end, !skippingLongLine else { return nil }
                lineNumber += 1
                let bytes = copy(start..<end)
                start = end
                return (lineNumber, bytes, false)
            }
            try fill()
        }
    }

    /// The lines `next()` would return, up to `limit` of them, in one block: fewer only at the
    /// end of the input, where a stream would wait, once the block holds `blockBytes`, or
    /// before a read error, which the next call throws; none at the end.
    ///
    /// A block whose lines the buffer holds whole is the buffer itself, lent (`bufferLent`): its
    /// lines are not copied. Any other block, one whose lines a read's end cuts, has its lines
    /// copied into an array of its own.
    package func nextLines(upTo limit: Int) throws(BatchInputError) -> LineBlock {
        var bytes: [UInt8] = []
        var spans: [LineBlock.Span] = []
        spans.reserveCapacity(limit)
        while spans.count < limit, bytes.count < Self.blockBytes {
            // The lines whole in the buffer, then copied line by line: one copy of the run, line
            // ends and all, was a `rep movsb`, which callgrind counts byte by byte.
            let first = spans.count
            var total = 0
            while spans.count < limit, bytes.count + total < Self.blockBytes, deferredError == nil, !skippingLongLine, let newline = newlineIndex() {
                let line = takeLine(endingAt: newline)
                spans.append(LineBlock.Span(number: line.number, range: line.range, tooLong: line.tooLong))
                total += line.range.count
            }
            if first == 0, spans.count == limit || total >= Self.blockBytes {
                bufferLent = true
                return LineBlock(bytes: buffer, spans: spans)
            }
            // Room for the lines still to come at the length of those read (a megabyte at most):
            // a run that a read's end cuts is copied once, not again when the block grows.
            if bytes.isEmpty, first < spans.count { bytes.reserveCapacity(total + min((limit - spans.count) * (total / spans.count + 2), 1 << 20)) }
            withBuffer { source in
                for index in first..<spans.count {
                    let span = spans[index]
                    spans[index] = LineBlock.Span(number: span.number, range: bytes.count..<bytes.count + span.range.count, tooLong: span.tooLong)
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[span.range]))
                }
            }
            if spans.count == limit || bytes.count >= Self.blockBytes || (!spans.isEmpty && (mayBlock || deferredError != nil)) { break }
            // The line the buffer holds only a part of, read on (long lines and the last line as
            // `next()` has them); a read error after lines of this block is thrown by the next call.
            let line: (number: Int, bytes: [UInt8], tooLong: Bool)?
            do {
                line = try nextLine()
            } catch where !spans.isEmpty {
                deferredError = error
                break
            }
            guard let line else { break }
            spans.append(LineBlock.Span(number: line.number, range: bytes.count..<bytes.count + line.bytes.count, tooLong: line.tooLong))
            bytes += line.bytes
        }
        return LineBlock(bytes: bytes, spans: spans)
    }

    /// The whole line from `start` to the newline at `newline`, counted: its number, where its
    /// bytes lie in the buffer (without `\r\n` or `\n`, cut at `maxLineBytes`) and whether they
    /// were cut; `start` moves past it.
    private func takeLine(endingAt newline: Int) -> (number: Int, range: Range<Int>, tooLong: Bool) {
        var lineEnd = newline
        if lineEnd > start, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        lineNumber += 1
        let tooLong = lineEnd - start > maxLineBytes
        let range = start..<(tooLong ? start + maxLineBytes : lineEnd)
        start = newline + 1
        return (lineNumber, range, tooLong)
    }

    /// The bytes after which a block of lines ends however few lines it holds: a chunk of long
    /// lines (up to `maxLineBytes` each) stays a few megabytes, not a chunk's count of them.
    package static let blockBytes = 4 << 20

    /// What one read of a plain input asks for: about 700 lines of a token log, so that two
    /// blocks in three are lent the buffer whole (`nextLines`). Reads of 1 MiB lent more, but
    /// two jobs ran 7% slower with them (a new megabyte a read; Benchmarks/RESULTS.md).
    private static let readStep = 256 * 1024

    /// The index of the next newline in the buffer, found with `memchr`.
    private func newlineIndex() -> Int? {
        withBuffer { bytes in
            guard start < end, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: "\n")), end - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Calls `body` with the buffer's bytes, read in place. Through mutable access, though
    /// nothing is written, while the reader alone holds them: a read-only access retained and
    /// released the buffer. Read-only while a block holds them too (`bufferLent`), where mutable
    /// access would copy them.
    @inline(__always)
    private func withBuffer<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if bufferLent { return buffer.withUnsafeBufferPointer(body) }
        return buffer.withUnsafeMutableBufferPointer { body(UnsafeBufferPointer($0)) }
    }

    private func fill() throws(BatchInputError) {
        if bufferLent {
            // A block holds the buffer: what is left of a line goes to the front of a new one,
            // which the read lands in, and the block keeps its bytes as they are.
            let (from, count) = (start, end - start)
            let size = Self.readStep + count
            buffer = buffer.withUnsafeBufferPointer { old in
                [UInt8](unsafeUninitializedCapacity: size) { new, initialized in
                    if count > 0 { new.baseAddress!.update(from: old.baseAddress! + from, count: count) }
                    // The room after the leftover is read into before any of it is read from.
                    initialized = size
                }
            }
            (start, end, bufferLent) = (0, count, false)
        }
        if start > 0 {
            // What is left of a line to the front: the room after it is where the next read lands.
            let (from, count) = (start, end - start)
            buffer.withUnsafeMutableBufferPointer { bytes in
                if count > 0 { UnsafeMutableRawPointer(bytes.baseAddress!).copyMemory(from: bytes.baseAddress! + from, byteCount: count) }
            }
            (start, end) = (0, count)
        }
        // Compressed input is read in small steps: gzip expands up to about 1000 times, and a
        // step must not become a huge buffer. Plain input, once sniffed, is read into the buffer.
        // The buffer grows only when less than half a step is left after a line's start: a
        // line's length must not decide, read after read, whether it doubles.
        let direct = sniffed && inflater == nil
        var step = direct ? Self.readStep : 8 * 1024
        if direct {
            if buffer.count - end < step / 2 { makeRoom(step) }
            step = min(step, buffer.count - end)
        }
        let count = try direct ? readAvailable(upTo: step, into: &buffer, at: end) : readAvailable(upTo: step, into: &chunk, at: 0)
        bytesRead += count
        if !sniffed {
            sniffed = true
            if count >= 2, chunk[0] == 0x1F, chunk[1] == 0x8B {
                do { inflater = try GzipInflater() } catch { throw BatchInputError(error.description) }
            }
        }
        guard count > 0 else {
            if let inflater, !inflater.isComplete { throw BatchInputError("the gzip input ends early: it is truncated") }
            endOfInput = true
            return
        }
        if direct {
            end += count
        } else if let inflater {
            let bytes: [UInt8]
            do { bytes = try inflater.inflate(Array(chunk[..<count])) } catch { throw BatchInputError(error.description) }
            decompressed += Int64(bytes.count)
            if let problem = limits.expansionProblem(compressed: Int64(bytesRead), decompressed: decompressed) { throw BatchInputError(problem) }
            append(bytes, count: bytes.count)
        } else {
            append(chunk, count: count)
        }
    }

    /// Room for `count` more bytes after `end`, the buffer grown (zeroed once) when it has less.
    private func makeRoom(_ count: Int) {
        guard buffer.count - end < count else { return }
        var grown = [UInt8](repeating: 0, count: max(buffer.count * 2, end + count))
        grown.withUnsafeMutableBufferPointer { target in
            buffer.withUnsafeBufferPointer { source in
                if end > 0 { target.baseAddress!.update(from: source.baseAddress!, count: end) }
            }
        }
        buffer = grown
    }

    /// Appends the first `count` bytes of `bytes` after `end`.
    private func append(_ bytes: [UInt8], count: Int) {
        makeRoom(count)
        buffer.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                if count > 0 { (target.baseAddress! + end).update(from: source.baseAddress!, count: count) }
            }
        }
        end += count
    }

    /// The bytes of `range` of the buffer, as an array of their own: copied in one block.
    private func copy(_ range: Range<Int>) -> [UInt8] {
        withBuffer { Array(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// What one `read` returns, into `target` from `offset` on (growing it to `offset + count`
    /// if it is smaller): as soon as the input has some bytes, not once `count` arrived, so a
    /// pipe that writes a line and waits has that line judged. Zero at the end. A target is made
    /// once, not zeroed again for every read.
    private func readAvailable(upTo count: Int, into target: inout [UInt8], at offset: Int) throws(BatchInputError) -> Int {
        if target.count < offset + count { target += [UInt8](repeating: 0, count: offset + count - target.count) }
        while true {
            let got = target.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress! + offset, count) }
            if got >= 0 { return got }
            guard errno == EINTR else {
                throw BatchInputError("the input cannot be read: \(String(cString: strerror(errno)))")
            }
        }
    }
}
