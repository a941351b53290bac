import PolicyRuntime
import PolicyJOSE
import Testing

/// Sizes as the cache settings are written: binary units only, and errors that say how to write one.
@Suite("Byte sizes")
struct ByteSizeTests {
    static let range = 1...(64 << 30)

    @Test("bytes, KiB, MiB and GiB, with or without a space")
    func sizes() throws {
        for (text, bytes) in [("67108864", 64 << 20), ("512KiB", 512 << 10), ("64MiB", 64 << 20), ("64 MiB", 64 << 20), ("2GiB", 2 << 30), ("100B", 100)] {
            #expect(try ByteSize.bytes(text, in: Self.range) == bytes, "\(text)")
        }
        #expect(ByteSize.written(64 << 20) == "64MiB" && ByteSize.written(1536 << 10) == "1536KiB" && ByteSize.written(100) == "100")
    }

    @Test("anything else is refused, saying how a size is written or what the range is")
    func refused() {
        /// What refusing `text` says.
        func problem(_ text: String, in range: ClosedRange<Int> = Self.range) -> String? {
            #expect(throws: ByteSize.Problem.self) { try ByteSize.bytes(text, in: range) }?.description
        }
        for text in ["64MB", "64mib", "64M", "-1MiB", "1.5GiB", "MiB", "", " 64MiB", "64MiB ", "64  MiB", "99999999999999999999GiB", "9999999999GiB"] {
            #expect(problem(text) == "'\(text)' is not a size: write a whole number of bytes, or of KiB, MiB or GiB (64MiB)")
        }
        #expect(problem("65GiB", in: (1 << 20)...(64 << 30)) == "'65GiB' is out of range: from 1MiB to 64GiB")
        // Control characters from the command line or a file are escaped, never echoed.
        #expect(problem("64\u{1B}[2J") == "'64\\u{001B}[2J' is not a size: write a whole number of bytes, or of KiB, MiB or GiB (64MiB)")
    }
}
