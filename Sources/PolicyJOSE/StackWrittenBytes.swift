extension Array where Element == UInt8 {
    /// `count` bytes written by `body` into a buffer on the stack, then copied.
    ///
    /// `[UInt8](unsafeUninitializedCapacity:)` allocates through a stdlib entry point that is not
    /// specialized and looks up its storage class's generic metadata at run time: about 200
    /// instructions a call, for every token part decoded. Copying a few hundred bytes costs a
    /// tenth of that. (`Array(repeating:count:)` takes the same slow path.)
    @inline(__always)
    init(writtenOnStack count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        self = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            body(buffer)
            return Array(buffer)
        }
    }
}
