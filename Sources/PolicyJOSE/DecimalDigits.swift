/// An integer's decimal text, written backwards into a buffer on the stack: what the verdict
/// lines' numbers and findings' messages are made of, without a `String` per number.
package enum DecimalDigits {
    /// Calls `body` with the decimal text of `value`, a `-` first when it is negative.
    @inlinable @inline(__always)
    package static func with<Result>(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        // Twenty bytes: Int64.min's nineteen digits and its sign.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude, start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            return body(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Calls `body` with the decimal text of `value`: `with` for another module, where a
    /// `package` generic is not specialized and its unspecialized call cost some 600
    /// instructions a number.
    package static func write(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        with(value, body)
    }
}
