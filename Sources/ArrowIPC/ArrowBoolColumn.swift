/// A `bool` column without nulls being built.
package struct ArrowBoolColumn: Sendable {
    private var values = ArrowBitmap()

    package init() {}

    package var count: Int { values.count }

    package mutating func append(_ value: Bool) {
        values.append(value)
    }

    /// The rows so far as a column; the builder starts over.
    package mutating func take() -> ArrowArray {
        let array = ArrowArray(length: values.count, nullCount: 0, buffers: [[], values.bytes])
        values.removeAll()
        return array
    }
}
