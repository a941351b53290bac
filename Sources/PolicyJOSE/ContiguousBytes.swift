/// Runs code over the bytes of a collection as one contiguous buffer, copying only when the
/// collection does not already store them contiguously (a native `String`'s UTF-8 view does).
enum ContiguousBytes {
    @inline(__always)
    static func with<T>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(JOSEError) -> T) throws(JOSEError) -> T {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JOSEError) in try body(buffer) }
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JOSEError) in try body(buffer) }
        }
        return try result.get()
    }

    /// The same over a string's UTF-8: through `String.withUTF8`, which is specialized where it
    /// is called, instead of the protocol's `withContiguousStorageIfAvailable`, which looks up the
    /// generic metadata of its closure's result at run time, on every token.
    @inline(__always)
    static func with<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(JOSEError) -> T) throws(JOSEError) -> T {
        var text = text
        return try text.withUTF8 { buffer in Result { () throws(JOSEError) in try body(buffer) } }.get()
    }
}
