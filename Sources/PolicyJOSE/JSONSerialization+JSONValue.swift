/// Compact JSON text for values the engine writes: JWS and JWE headers, minted test tokens,
/// verdict fragments.
extension JSONValue {
    /// The compact UTF-8 serialization (no insignificant whitespace, members in order).
    public func serializedBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        writer.value(self)
        return writer.bytes
    }

    /// The compact serialization as text.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }
}
