/// A FlatBuffers encoder for the few tables an Arrow IPC message needs, built back to front as
/// the format requires: an object's children are written before it, so that every offset
/// points forward from where it is stored.
///
/// Offsets are measured from the end of the buffer until `finished(root:)` lays it out.
struct FlatBufferBuilder {
    /// Where an object starts, counted from the end of the buffer.
    struct Offset {
        fileprivate let fromEnd: Int
    }

    /// The buffer's bytes in reverse order, so that prepending is appending.
    private var reversed: [UInt8] = []
    private var largestAlignment = 4
    /// The open table's fields: their ids and where each was written.
    private var fields: [(id: Int, fromEnd: Int)] = []
    private var tableEnd = 0

    init(capacity: Int = 512) {
        reversed.reserveCapacity(capacity)
    }

    /// Pads so that once `additional` more bytes are prepended, the position is a multiple of `size`.
    private mutating func align(_ size: Int, additional: Int = 0) {
        largestAlignment = max(largestAlignment, size)
        let padding = (size - (reversed.count + additional) % size) % size
        reversed.append(contentsOf: repeatElement(0, count: padding))
    }

    /// Prepends `value` little-endian, without aligning.
    private mutating func prependBytes<T: FixedWidthInteger>(of value: T) {
        for byte in (0..<MemoryLayout<T>.size).reversed() { reversed.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
    }

    private mutating func prependOffset(to target: Offset) {
        align(4)
        prependBytes(of: UInt32(reversed.count + 4 - target.fromEnd))
    }

    /// A string: its length, its UTF-8 bytes and the terminating NUL the format keeps.
    mutating func string(_ text: String) -> Offset {
        let bytes = Array(text.utf8)
        align(4, additional: bytes.count + 1)
        reversed.append(0)
        reversed.append(contentsOf: bytes.reversed())
        prependBytes(of: UInt32(bytes.count))
        return Offset(fromEnd: reversed.count)
    }

    /// A vector of tables (or strings), by their offsets.
    mutating func vector(of offsets: [Offset]) -> Offset {
        align(4, additional: 4 * offsets.count)
        for offset in offsets.reversed() { prependOffset(to: offset) }
        prependBytes(of: UInt32(offsets.count))
        return Offset(fromEnd: reversed.count)
    }

    /// A vector of structs of two 64-bit members each (Arrow's `FieldNode` and `Buffer`).
    mutating func vector(ofPairs pairs: [(Int64, Int64)]) -> Offset {
        align(8, additional: 16 * pairs.count)
        for (first, second) in pairs.reversed() {
            prependBytes(of: second)
            prependBytes(of: first)
        }
        prependBytes(of: UInt32(pairs.count))
        return Offset(fromEnd: reversed.count)
    }

    /// Opens a table; its fields follow, then `endTable()`.
    mutating func startTable() {
        fields.removeAll(keepingCapacity: true)
        tableEnd = reversed.count
    }

    /// A scalar field of the open table.
    mutating func add<T: FixedWidthInteger>(_ id: Int, _ value: T) {
        align(MemoryLayout<T>.size)
        prependBytes(of: value)
        fields.append((id, reversed.count))
    }

    /// A field of the open table that refers to an object written before the table was opened.
    mutating func add(_ id: Int, _ offset: Offset) {
        prependOffset(to: offset)
        fields.append((id, reversed.count))
    }

    /// Closes the open table: writes it and the vtable that says where each field is.
    mutating func endTable() -> Offset {
        align(4)
        prependBytes(of: Int32(0))
        let table = reversed.count
        var slots = [UInt16](repeating: 0, count: (fields.map(\.id).max() ?? -1) + 1)
        for field in fields { slots[field.id] = UInt16(table - field.fromEnd) }
        for slot in slots.reversed() { prependBytes(of: slot) }
        prependBytes(of: UInt16(table - tableEnd))
        prependBytes(of: UInt16(4 + 2 * slots.count))
        // The table's first member: how far before it its vtable is.
        let distance = UInt32(reversed.count - table)
        for byte in 0..<4 { reversed[table - 1 - byte] = UInt8(truncatingIfNeeded: distance >> (8 * byte)) }
        return Offset(fromEnd: table)
    }

    /// The finished buffer, `root` its root table; its length is a multiple of 8.
    mutating func finished(root: Offset) -> [UInt8] {
        align(max(largestAlignment, 8), additional: 4)
        prependOffset(to: root)
        return reversed.reversed()
    }
}
