/// A run of a log's lines read together (`LineReader.nextLines`): one array that holds their
/// bytes, and where each lies in it. The array is the reader's buffer, lent, when the buffer held
/// every line whole (other bytes then lie around them), else the lines copied one after another.
///
/// A chunk of a log is judged from its block: no allocation a line, and a worker reads each line
/// in place; a line becomes a `LineReader.Line` of its own only where
/// it is parsed whole. A cache that keeps a token copies it out (`TokenText.kept`), and a
/// worker's request lets go of its last one (`BatchEvaluator.judgeNow`), or either would keep
/// the whole block.
package struct LineBlock: Sendable {
    /// Where one line lies in `bytes`, without its line end, cut at the reader's `maxLineBytes`.
    package struct Span: Sendable {
        /// 1-based, in the input.
        package let number: Int
        package let range: Range<Int>
        /// Whether the line was longer than the reader's `maxLineBytes` and was cut.
        package let tooLong: Bool
    }

    package let bytes: [UInt8]
    /// The lines in order; blank ones may be left out (`BatchRecords`).
    package var spans: [Span]

    /// A block of `bytes` holding the lines `spans`.
    package init(bytes: [UInt8], spans: [Span]) {
        self.bytes = bytes
        self.spans = spans
    }

    /// The line `span` as a line of its own (its bytes still a part of the block).
    package func line(_ span: Span) -> LineReader.Line {
        LineReader.Line(number: span.number, bytes: bytes[span.range], tooLong: span.tooLong)
    }
}
