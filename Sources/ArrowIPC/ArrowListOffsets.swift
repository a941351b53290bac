/// The rows of a `list` column being built: where each row's items start in its child column,
/// which the caller fills alongside.
package struct ArrowListOffsets: Sendable {
    private var validity = ArrowBitmap()
    private var offsets: [UInt8] = [0, 0, 0, 0]

    package init() {}

    package var count: Int { validity.count }

    /// Ends a row whose items are the child column's first `itemsSoFar` values, less those of
    /// earlier rows.
    package mutating func endRow(itemsSoFar: Int) {
        validity.append(true)
        appendLittleEndian(Int32(truncatingIfNeeded: itemsSoFar), to: &offsets)
    }

    /// The rows so far as a column over `child`; the builder starts over.
    package mutating func take(child: ArrowArray) -> ArrowArray {
        let array = ArrowArray(length: validity.count, nullCount: validity.clearCount,
                               buffers: [ArrowArray.validityBuffer(validity), offsets], children: [child])
        validity.removeAll()
        offsets.removeAll(keepingCapacity: true)
        offsets.append(contentsOf: [0, 0, 0, 0])
        return array
    }
}
