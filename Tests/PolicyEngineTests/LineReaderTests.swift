import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PolicyRuntime
import PolicyJOSE
import Testing

/// `LineReader` on a pipe: it says it may block only when the pipe really has nothing waiting,
/// so `batch -` fills whole chunks (and keeps every core busy) while the writer keeps up.
@Suite("Line reader")
struct LineReaderTests {
    @Test("a pipe with bytes waiting does not block; an open empty one may; its end does not")
    func pipeWithBytesWaiting() throws {
        // Close-on-exec: a process another test starts meanwhile must not inherit the write end,
        // or closing it here would not end the pipe (Foundation's `Pipe` does not ask for it).
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        for end in ends { try #require(fcntl(end, F_SETFD, FD_CLOEXEC) == 0) }
        let pipe = (fileHandleForReading: FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
                    fileHandleForWriting: FileHandle(fileDescriptor: ends[1], closeOnDealloc: false))
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
}
