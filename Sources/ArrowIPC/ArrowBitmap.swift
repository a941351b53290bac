/// Bits packed least significant first, as Arrow stores validity and booleans.
package struct ArrowBitmap: Sendable {
    package private(set) var bytes: [UInt8] = []
    package private(set) var count = 0
    /// How many bits are clear: for validity, the nulls.
    package private(set) var clearCount = 0

    package init() {}

    package mutating func append(_ bit: Bool) {
        if count & 7 == 0 { bytes.append(0) }
        if bit {
            bytes[count >> 3] |= 1 << UInt8(count & 7)
        } else {
            clearCount += 1
        }
        count += 1
    }

    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
        clearCount = 0
    }
}
