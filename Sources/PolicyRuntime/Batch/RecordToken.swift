/// A record's token as its line holds it: the bytes between the token's quotes, made into a
/// `String` only when the token is judged. A repeated token's verdict is found by these bytes
/// (`VerdictMemo`), so a repeat costs no string.
package struct RecordToken: Sendable {
    private enum Storage: Sendable {
        case text(String)
        /// Bytes of a line, valid UTF-8 (the line's JSON was checked), within `range`.
        case line([UInt8], Range<Int>)
    }

    private let storage: Storage

    /// A token given as text.
    package init(_ text: String) {
        storage = .text(text)
    }

    /// The token written without escapes at `range` of a line whose JSON was checked, so its
    /// bytes are valid UTF-8 and are the token's text.
    init(line: [UInt8], range: Range<Int>) {
        storage = .line(line, range)
    }

    /// The token's text.
    package var text: String {
        switch storage {
        case let .text(text): text
        case let .line(bytes, range): bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        }
    }

    /// Calls `body` with the token's UTF-8 bytes.
    func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case var .text(text): text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case let .line(bytes, range): bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
    }
}
