/// One column of a record batch as Arrow lays it out: its buffers in the order of its type
/// (validity first, then offsets or values, then data) and its children's columns.
package struct ArrowArray: Sendable {
    package let length: Int
    package let nullCount: Int
    package let buffers: [[UInt8]]
    package let children: [ArrowArray]

    package init(length: Int, nullCount: Int, buffers: [[UInt8]], children: [ArrowArray] = []) {
        self.length = length
        self.nullCount = nullCount
        self.buffers = buffers
        self.children = children
    }

    /// A `struct` column over `children` (each as long as it), `validity` saying which rows
    /// hold a value (nil: every row).
    package static func structure(of children: [ArrowArray], validity: ArrowBitmap? = nil) -> ArrowArray {
        ArrowArray(length: children.first?.length ?? validity?.count ?? 0, nullCount: validity?.clearCount ?? 0,
                   buffers: [validity.map(validityBuffer) ?? []], children: children)
    }

    /// The validity buffer of a column with `validity`: none when nothing is null.
    static func validityBuffer(_ validity: ArrowBitmap) -> [UInt8] {
        validity.clearCount == 0 ? [] : validity.bytes
    }
}
