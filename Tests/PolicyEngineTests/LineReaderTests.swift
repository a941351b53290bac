import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import PolicyRuntime
import PolicyJOSE
import Testing

/// `LineReader` on a pipe: it says it may block only when the pipe really has nothing waiting,
/// so `batch -` fills whole chunks (and keeps every core busy) while the writer keeps up.
@Suite("Line reader")
struct LineReaderTests {
    /// A pipe whose ends are closed on exec: a process another test starts meanwhile must not
    /// inherit the write end, or closing it here would not end the pipe (Foundation's `Pipe`
    /// does not ask for it). The reading end closes with its handle; the writing end's
    /// descriptor comes too, for `fcntl`.
    static func pipeEnds(closingWriteEnd: Bool) throws -> (reading: FileHandle, writing: FileHandle, writeDescriptor: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        for end in ends { try #require(fcntl(end, F_SETFD, FD_CLOEXEC) == 0) }
        return (FileHandle(fileDescriptor: ends[0], closeOnDealloc: true), FileHandle(fileDescriptor: ends[1], closeOnDealloc: closingWriteEnd), ends[1])
    }

    @Test("a pipe with bytes waiting does not block; an open empty one may; its end does not")
    func pipeWithBytesWaiting() throws {
        let ends = try Self.pipeEnds(closingWriteEnd: false)
        let pipe = (fileHandleForReading: ends.reading, fileHandleForWriting: ends.writing)
        let line = String(repeating: "a", count: 99) + "\n"
        // 20,000 bytes: within a pipe's capacity, and more than the reader's first read.
        pipe.fileHandleForWriting.write(Data(String(repeating: line, count: 200).utf8))
        let reader = LineReader(handle: pipe.fileHandleForReading)
        for number in 1...200 {
            #expect(!reader.mayBlock, "line \(number): bytes are buffered or waiting in the pipe")
            #expect(try reader.next()?.number == number)
        }
        #expect(reader.mayBlock, "every byte read, the pipe open")
        try pipe.fileHandleForWriting.close()
        #expect(!reader.mayBlock, "the pipe's end is there to read")
        #expect(try reader.next() == nil)
    }

    /// Lines of every length from empty to tens of kilobytes, `\r\n` or `\n`, one cut at the
    /// cap, over several reads of the file: each comes back whole, in order, where the reads'
    /// edges fall in its middle, at its `\r` or at its `\n`.
    @Test("lines across the edges of many reads come back whole and in order, CRLF and a line past the cap included")
    func linesAcrossReads() throws {
        var random = SplitMix(seed: 0x11_7E5)
        var text: [UInt8] = []
        var expected: [(bytes: [UInt8], tooLong: Bool)] = []
        let cap = 40_000
        while text.count < 1_500_000 {
            let length = [0, 1, 15, 99, 700, 4_095, 30_000, 50_000][random.next(8)] + random.next(3)
            let line = (0..<length).map { UInt8(ascii: "a") + UInt8(($0 + text.count) % 26) }
            text += line
            text += random.next(3) == 0 ? [0x0D, 0x0A] : [0x0A]
            expected.append((Array(line.prefix(cap)), line.count > cap))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("line-reader-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(text).write(to: file)
        let reader = LineReader(handle: try FileHandle(forReadingFrom: file), maxLineBytes: cap)
        for (index, line) in expected.enumerated() {
            let read = try #require(try reader.next(), "line \(index + 1) of \(expected.count)")
            #expect(read.number == index + 1)
            #expect(Array(read.bytes) == line.bytes, "line \(index + 1): \(read.bytes.count) bytes, expected \(line.bytes.count)")
            #expect(read.tooLong == line.tooLong)
        }
        #expect(try reader.next() == nil)
    }

    /// The same file read in blocks (`nextLines`, what a batch judges a chunk from): the same
    /// lines, numbered alike, every block full but the last, though reads end mid-line. Every
    /// block is kept until the whole file is read: one lent the reader's buffer must keep its
    /// bytes while the reader reads on.
    @Test("blocks of lines hold what next() returns, line for line, each full until the end, whatever was read after them")
    func blocksAcrossReads() throws {
        var random = SplitMix(seed: 0xB10C)
        var text: [UInt8] = []
        let cap = 40_000
        while text.count < 1_500_000 {
            let length = [0, 1, 15, 99, 700, 4_095, 30_000, 50_000][random.next(8)] + random.next(3)
            text += (0..<length).map { UInt8(ascii: "a") + UInt8(($0 + text.count) % 26) }
            text += random.next(3) == 0 ? [0x0D, 0x0A] : [0x0A]
        }
        // The last line without a line end, as a log cut short has it.
        text += Array("last".utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("line-blocks-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(text).write(to: file)
        let lines = LineReader(handle: try FileHandle(forReadingFrom: file), maxLineBytes: cap)
        let blocks = LineReader(handle: try FileHandle(forReadingFrom: file), maxLineBytes: cap)
        var kept: [LineBlock] = []
        while true {
            let block = try blocks.nextLines(upTo: 7)
            kept.append(block)
            if block.spans.count < 7 { break }
        }
        #expect(try blocks.nextLines(upTo: 7).spans.isEmpty)
        var read = 0
        for block in kept {
            for span in block.spans {
                let line = try #require(try lines.next(), "line \(span.number)")
                #expect(span.number == line.number)
                #expect(block.line(span).bytes.elementsEqual(line.bytes), "line \(line.number)")
                #expect(span.tooLong == line.tooLong)
            }
            read += block.spans.count
        }
        #expect(try lines.next() == nil, "blocks ended at line \(read)")
        // Most blocks were lent the buffer (it holds more than their lines), some were copied.
        let lent = kept.filter { block in block.bytes.count > block.spans.reduce(0) { $0 + $1.range.count + 2 } }.count
        #expect(lent > kept.count / 2 && lent < kept.count, "\(lent) of \(kept.count) blocks lent the buffer")
    }

    /// Long lines fill a block by their bytes before its count of lines: a chunk of megabyte
    /// lines stays a few megabytes.
    @Test("a block of long lines ends after its bytes bound, and the next one goes on")
    func blockOfLongLines() throws {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 100_000) + [0x0A]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("line-blocks-long-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(Array((0..<120).map { _ in line }.joined())).write(to: file)
        let reader = LineReader(handle: try FileHandle(forReadingFrom: file))
        var numbers: [Int] = [], blocks = 0
        while true {
            let block = try reader.nextLines(upTo: 256)
            if block.spans.isEmpty { break }
            blocks += 1
            #expect(block.bytes.count < LineReader.blockBytes + 3 << 20, "a block of \(block.bytes.count) bytes")
            #expect(block.spans.allSatisfy { block.line($0).bytes.count == 100_000 })
            numbers += block.spans.map(\.number)
        }
        #expect(numbers == Array(1...120))
        #expect(blocks >= 3, "12 MB of lines in \(blocks) blocks")
    }

    /// A block from a pipe whose writer paused holds the lines that came, at once: a live log is
    /// judged as it arrives, not once a chunk's worth has.
    @Test("a block from a pipe holds what arrived and does not wait for the rest")
    func blockFromPausedPipe() throws {
        let (reading, writing, _) = try Self.pipeEnds(closingWriteEnd: false)
        writing.write(Data("one\ntwo\nthree\nfou".utf8))
        // Read on another thread, which this one alone touches the reader after.
        nonisolated(unsafe) let reader = LineReader(handle: reading)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var block: LineBlock?
        Thread {
            block = try? reader.nextLines(upTo: 256)
            done.signal()
        }.start()
        let waited = done.wait(timeout: .now() + 20) == .timedOut
        #expect(!waited, "the block waited for lines the writer had not written")
        if waited {
            try writing.close()
            done.wait()
        }
        let got = try #require(block)
        #expect(got.spans.map { String(decoding: got.line($0).bytes, as: UTF8.self) } == ["one", "two", "three"])
        writing.write(Data("r\nfive\n".utf8))
        try writing.close()
        let rest = try reader.nextLines(upTo: 256)
        #expect(rest.spans.map { String(decoding: rest.line($0).bytes, as: UTF8.self) } == ["four", "five"])
        #expect(rest.spans.map(\.number) == [4, 5])
        #expect(try reader.nextLines(upTo: 256).spans.isEmpty)
    }

    /// A gzip stream cut short, through a pipe: the lines before the cut come in blocks, as
    /// `next()` reads them from the same bytes in a file, and the error comes after them.
    @Test("a truncated gzip stream on a pipe gives its whole lines in blocks, then the error")
    func truncatedGzipOnPipe() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("line-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("log")
        try Data((1...3000).map { "line \($0) \(String(repeating: "z", count: $0 % 97))\n" }.joined().utf8).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let whole = try Data(contentsOf: plain.appendingPathExtension("gz"))
        let cut = folder.appendingPathComponent("cut.gz")
        try whole.prefix(whole.count * 2 / 3).write(to: cut)
        var expected: [Int] = []
        let lines = LineReader(handle: try FileHandle(forReadingFrom: cut))
        do {
            while let line = try lines.next() { expected.append(line.number) }
            Issue.record("the cut file read to its end")
        } catch {}
        #expect(expected.count > 100)

        let (reading, writing, _) = try Self.pipeEnds(closingWriteEnd: true)
        let bytes = try Data(contentsOf: cut)
        nonisolated(unsafe) let writer = writing
        let wrote = Thread {
            writer.write(bytes)
            try? writer.close()
        }
        wrote.start()
        let blocks = LineReader(handle: reading)
        var numbers: [Int] = []
        var failed = false
        while !failed {
            do {
                let block = try blocks.nextLines(upTo: 256)
                if block.spans.isEmpty { break }
                numbers += block.spans.map(\.number)
            } catch {
                #expect(error.description.contains("gzip"), "\(error)")
                failed = true
            }
        }
        #expect(failed, "the cut stream ended without an error")
        #expect(numbers.count == expected.count, "lines before the error")
        #expect(numbers.elementsEqual(expected), "the same lines, in order")
    }

    /// A line past the cap on a pipe is skipped as it comes: a writer that keeps it coming
    /// without an end does not grow the reader's buffer with it.
    @Test("the rest of an over-long line on a pipe is dropped as it arrives, not buffered")
    func longLineOnPipeNotBuffered() throws {
        let ends = try Self.pipeEnds(closingWriteEnd: true)
        // A pipe of a megabyte (F_SETPIPE_SZ), so that the writer keeps more waiting than a read takes.
        _ = fcntl(ends.writeDescriptor, 1031, Int32(1 << 20))
        nonisolated(unsafe) let writer = ends.writing
        Thread {
            writer.write(Data("first\n".utf8))
            let piece = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
            for _ in 0..<32 { writer.write(piece) }
            writer.write(Data("\nlast\n".utf8))
            try? writer.close()
        }.start()
        let reader = LineReader(handle: ends.reading, maxLineBytes: 1024)
        var lines: [(String, Bool)] = []
        while true {
            let block = try reader.nextLines(upTo: 256)
            if block.spans.isEmpty { break }
            lines += block.spans.map { (String(decoding: block.line($0).bytes.prefix(8), as: UTF8.self), $0.tooLong) }
            #expect(reader.bufferCapacity < 4 << 20, "the buffer holds \(reader.bufferCapacity) bytes")
        }
        #expect(lines.map(\.0) == ["first", "xxxxxxxx", "last"])
        #expect(lines.map(\.1) == [false, true, false])
    }
}
