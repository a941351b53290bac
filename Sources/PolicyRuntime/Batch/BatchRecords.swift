@_spi(RuleAuthoring) import PolicyJOSE

/// The records of one input, read as they are needed: an `AsyncSequence` over a `LineReader`.
///
/// Reading happens in `next()`, on the task that iterates, so the evaluator pulls records only
/// as fast as it judges them and memory stays flat. One iteration per instance: the reader is
/// consumed as it goes.
package struct BatchRecords: AsyncSequence, @unchecked Sendable {
    // Unchecked: the reader is a reference touched only by the single iterator that owns it.
    /// One record of the input, in order.
    package typealias Element = BatchRecord

    private let reader: LineReader
    private let format: SharedRecordFormat
    private let input: String?

    /// The records of `reader`, read as `format`; `input` names the file in verdicts.
    package init(reader: LineReader, format: BatchRecordFormat, input: String? = nil) {
        self.reader = reader
        self.format = SharedRecordFormat(format)
        self.input = input
    }

    /// Reads one record after another.
    package struct AsyncIterator: AsyncIteratorProtocol {
        /// The input, whose `mayBlock` says whether the next record may have to wait for it (a
        /// pipe with no whole line buffered).
        package let reader: LineReader
        let format: SharedRecordFormat
        let input: String?

        /// The next record, skipping blank lines; nil at the end. The line is left for the
        /// worker that judges it to parse.
        package mutating func next() async throws -> BatchRecord? {
            try nextRecord()
        }

        /// `next()` without an asynchronous call: the reader reads (and may block) on the calling
        /// thread either way, and an async call a record cost its task frame and executor checks
        /// (about 600 instructions, the whole of a repeated token's reading).
        package func nextRecord() throws(BatchInputError) -> BatchRecord? {
            try nextLine().map { BatchRecord(line: $0.number, input: input, content: .unparsed($0, format)) }
        }

        /// The next line that is not blank; nil at the end.
        private func nextLine() throws(BatchInputError) -> LineReader.Line? {
            while let line = try reader.next() {
                if !BatchRecordFormat.isBlank(line) { return line }
            }
            return nil
        }

        /// Up to `limit` lines that are not blank, read together into one block
        /// (`LineReader.nextLines`) for a reader that judges them itself; none at the end. Most
        /// blocks have no blank line, and are only looked through.
        package func nextLines(upTo limit: Int) throws(BatchInputError) -> LineBlock {
            while true {
                var block = try reader.nextLines(upTo: limit)
                if block.spans.isEmpty { return block }
                let blank = block.bytes.withUnsafeBufferPointer { bytes in
                    block.spans.contains { BatchRecordFormat.isBlank(UnsafeBufferPointer(rebasing: bytes[$0.range]), tooLong: $0.tooLong) }
                }
                guard blank else { return block }
                block.spans = block.bytes.withUnsafeBufferPointer { bytes in
                    block.spans.filter { !BatchRecordFormat.isBlank(UnsafeBufferPointer(rebasing: bytes[$0.range]), tooLong: $0.tooLong) }
                }
                if !block.spans.isEmpty { return block }
            }
        }
    }

    /// An iterator from the reader's current position.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: reader, format: format, input: input)
    }
}
