/// Eight bytes of a JSON string's text as one little-endian word, tested at once for the bytes
/// a reader or a writer must look at one by one: `"`, `\` and control bytes.
///
/// A zero byte in `x` shows as a high bit in `(x - 0x01…) & ~x`, and a byte below 0x20 in
/// `(word - 0x20…) & ~word`. A borrow can only mark bytes after a marked one, so the lowest mark
/// is exact: `firstMarked` is the first byte to look at.
struct JSONStringWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// A high bit in each byte that is a quote, a backslash or a control byte (and, with
    /// `nonASCII`, each byte of 0x80 and above), exact up to the first marked byte.
    let marks: UInt64

    /// The word of the eight bytes at `pointer`, marked as `nonASCII` says.
    @inline(__always) init(at pointer: UnsafePointer<UInt8>, nonASCII: Bool) {
        let word = UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- Self.ones) & ~x & Self.highs }
        let quote = zeroBytes(word ^ (Self.ones &* 0x22))
        let backslash = zeroBytes(word ^ (Self.ones &* 0x5C))
        let control = (word &- Self.ones &* 0x20) & ~word & Self.highs
        marks = quote | backslash | control | (nonASCII ? word & Self.highs : 0)
    }

    /// The offset in the word of the first marked byte; 8 when none is.
    var firstMarked: Int { marks.trailingZeroBitCount / 8 }
}
