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
        /// The line's bytes, cut at `maxLineBytes`.
        package let bytes: [UInt8]
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
    private var buffer: [UInt8] = []
    /// Where each read lands before its bytes join `buffer` (or, for gzip, are inflated).
    private var chunk: [UInt8] = []
    private var start = 0
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
            do { try fill() } catch { deferredError = error }
        }
        return false
    }

    /// A read error `mayBlock` met, for `next()` to throw.
    private var deferredError: BatchInputError?

    /// Whether `next()` can return a line from the buffer: a whole one, or one already past
    /// `maxLineBytes` to be cut.
    private var lineBuffered: Bool {
        buffer[start...].contains(UInt8(ascii: "\n")) || (!skippingLongLine && buffer.count - start > maxLineBytes)
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
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        while true {
            if let newline = newlineIndex() {
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let lineStart = start
                start = newline + 1
                if skippingLongLine {
                    skippingLongLine = false
                    continue
                }
                lineNumber += 1
                let tooLong = end - lineStart > maxLineBytes
                return Line(number: lineNumber, bytes: copy(lineStart..<(tooLong ? lineStart + maxLineBytes : end)), tooLong: tooLong)
            }
            if buffer.count - start > maxLineBytes, !skippingLongLine {
                lineNumber += 1
                let cut = Array(buffer[start..<start + maxLineBytes])
                buffer.removeAll(keepingCapacity: true)
                start = 0
                skippingLongLine = true
                return Line(number: lineNumber, bytes: cut, tooLong: true)
            }
            if skippingLongLine {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            if endOfInput {
                guard start < buffer.count, !skippingLongLine else { return nil }
                lineNumber += 1
                let bytes = Array(buffer[start...])
                start = buffer.count
                return Line(number: lineNumber, bytes: bytes, tooLong: false)
            }
            try fill()
        }
    }

    /// The index of the next newline in the buffer, found with `memchr`.
    private func newlineIndex() -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    private func fill() throws(BatchInputError) {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        // Compressed input is read in small steps: gzip expands up to about 1000 times, and a
        // step must not become a huge buffer.
        let count = try readAvailable(upTo: sniffed && inflater == nil ? 256 * 1024 : 8 * 1024)
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
        if let inflater {
            let bytes: [UInt8]
            do { bytes = try inflater.inflate(Array(chunk[..<count])) } catch { throw BatchInputError(error.description) }
            decompressed += Int64(bytes.count)
            if let problem = limits.expansionProblem(compressed: Int64(bytesRead), decompressed: decompressed) { throw BatchInputError(problem) }
            buffer.append(contentsOf: bytes)
        } else {
            // Through a buffer pointer: appending the array slice copied it a byte at a time.
            chunk.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// The bytes of `range` of the buffer, as an array of their own: copied in one block.
    private func copy(_ range: Range<Int>) -> [UInt8] {
        buffer.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// What one `read` returns, into the first bytes of `chunk`: as soon as the input has some
    /// bytes, not once `count` arrived, so a pipe that writes a line and waits has that line
    /// judged. Zero at the end. `chunk` is made once, not zeroed again for every read.
    private func readAvailable(upTo count: Int) throws(BatchInputError) -> Int {
        if chunk.count < count { chunk = [UInt8](repeating: 0, count: count) }
        while true {
            let got = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, count) }
            if got >= 0 { return got }
            guard errno == EINTR else {
                throw BatchInputError("the input cannot be read: \(String(cString: strerror(errno)))")
            }
        }
    }
}
