/// Arrow's IPC streaming format: a schema message, then record batches, then an end marker,
/// each message framed as readers expect (a continuation marker, the metadata's length, the
/// metadata and the body each padded to 8 bytes).
///
/// What pyarrow, Arrow's Java and Rust readers, DuckDB and Polars read as `open_stream`, with
/// no dependency of ours on an Arrow library: the few FlatBuffers tables are written here.
package struct ArrowStreamEncoder: Sendable {
    /// The columns of every batch.
    package let fields: [ArrowField]

    /// What ends a stream: a continuation marker and a metadata length of 0.
    package static let endOfStream: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]

    package init(fields: [ArrowField]) {
        self.fields = fields
    }

    private enum HeaderType: UInt8 {
        case schema = 1
        case recordBatch = 3
    }

    /// The message that opens the stream: the schema.
    package func schemaMessage() -> [UInt8] {
        var builder = FlatBufferBuilder()
        let fieldOffsets = fields.map { $0.write(to: &builder) }
        let fieldVector = builder.vector(of: fieldOffsets)
        builder.startTable()
        builder.add(1, fieldVector)  // endianness (0) is little, the default
        let schema = builder.endTable()
        var output: [UInt8] = []
        append(message(&builder, header: .schema, table: schema, bodyLength: 0), body: [], to: &output)
        return output
    }

    /// A record batch of `length` rows, one array per field in order; appended to `output`.
    package func appendRecordBatch(length: Int, columns: [ArrowArray], to output: inout [UInt8]) {
        precondition(columns.count == fields.count, "a record batch needs one column per field")
        var nodes: [(Int64, Int64)] = []
        var buffers: [[UInt8]] = []
        func visit(_ array: ArrowArray) {
            nodes.append((Int64(array.length), Int64(array.nullCount)))
            buffers += array.buffers
            array.children.forEach(visit)
        }
        columns.forEach(visit)
        var layout: [(Int64, Int64)] = []
        var bodyLength = 0
        for buffer in buffers {
            layout.append((Int64(bodyLength), Int64(buffer.count)))
            bodyLength += Self.padded(buffer.count)
        }
        var builder = FlatBufferBuilder()
        let nodeVector = builder.vector(ofPairs: nodes)
        let bufferVector = builder.vector(ofPairs: layout)
        builder.startTable()
        builder.add(0, Int64(length))
        builder.add(1, nodeVector)
        builder.add(2, bufferVector)
        let batch = builder.endTable()
        append(message(&builder, header: .recordBatch, table: batch, bodyLength: bodyLength), body: buffers, to: &output)
    }

    private func message(_ builder: inout FlatBufferBuilder, header: HeaderType, table: FlatBufferBuilder.Offset, bodyLength: Int) -> [UInt8] {
        builder.startTable()
        builder.add(3, Int64(bodyLength))
        builder.add(2, table)
        builder.add(0, Int16(4))  // MetadataVersion V5
        builder.add(1, header.rawValue)
        return builder.finished(root: builder.endTable())
    }

    private func append(_ metadata: [UInt8], body: [[UInt8]], to output: inout [UInt8]) {
        output.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])
        let metadataLength = Self.padded(metadata.count)
        appendLittleEndian(Int32(metadataLength), to: &output)
        output.append(contentsOf: metadata)
        output.append(contentsOf: repeatElement(0, count: metadataLength - metadata.count))
        for buffer in body {
            output.append(contentsOf: buffer)
            output.append(contentsOf: repeatElement(0, count: Self.padded(buffer.count) - buffer.count))
        }
    }

    private static func padded(_ count: Int) -> Int { (count + 7) & ~7 }
}
