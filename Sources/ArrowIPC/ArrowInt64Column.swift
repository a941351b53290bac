/// An `int64` column without nulls being built.
package struct ArrowInt64Column: Sendable {
    private var values: [UInt8] = []

    package init() {}

    package var count: Int { values.count / 8 }

    package mutating func append(_ value: Int64) {
        appendLittleEndian(value, to: &values)
    }

    /// The rows so far as a column; the builder starts over.
    package mutating func take() -> ArrowArray {
        let array = ArrowArray(length: count, nullCount: 0, buffers: [[], values])
        values.removeAll(keepingCapacity: true)
        return array
    }
}
