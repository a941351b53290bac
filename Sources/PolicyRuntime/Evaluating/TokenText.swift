#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A presented token's text: a `String`, or the bytes of a log line that hold it.
///
/// A token read from a batch record stays bytes of its line, so judging it makes no string: its
/// verdict is looked up (`VerdictMemo`), it is split and decoded (`TokenDecoder`) and kept
/// decoded (`DecodedTokenCache`) by those bytes. A `String` is made only for the paths that read
/// text (a JSON serialization, a nested token, a DPoP proof's `ath`).
package struct TokenText: Sendable {
    private enum Storage: Sendable {
        case text(String)
        /// Bytes of a line, valid UTF-8 (the line's JSON was checked).
        case line(ArraySlice<UInt8>)
    }

    private let storage: Storage

    /// A token given as text.
    package init(_ text: String) {
        storage = .text(text)
    }

    /// The token written without escapes in `line`, a part of a line whose JSON was checked, so
    /// its bytes are valid UTF-8 and are the token's text.
    init(line: ArraySlice<UInt8>) {
        storage = .line(line)
    }

    /// The token's text.
    package var text: String {
        switch storage {
        case let .text(text): text
        case let .line(bytes): String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The token's size in UTF-8 bytes.
    var byteCount: Int {
        switch storage {
        case let .text(text): text.utf8.count
        case let .line(bytes): bytes.count
        }
    }

    /// Calls `body` with the token's UTF-8 bytes.
    func withUTF8<Value, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value) throws(Failure) -> Value {
        switch storage {
        case var .text(text): try text.withUTF8 { text in Result { () throws(Failure) in try body(text) } }.get()
        // Typed throws straight through where the standard library passes them (`String.withUTF8`
        // does not): a value wrapped in a `Result` to carry the error type was copied out of it and
        // the wrapper destroyed (a decoded JWS: a retain and release of each of its references).
        case let .line(bytes): try bytes.withUnsafeBufferPointer { (line) throws(Failure) -> Value in try body(line) }
        }
    }

    /// Whether the token's bytes are `bytes`, byte for byte: `==` on strings would take two
    /// canonically equivalent texts (a JSON serialization's header written with a decomposed
    /// accent) for one.
    func hasBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        withUTF8 { own in own.count == bytes.count && (own.isEmpty || memcmp(own.baseAddress!, bytes.baseAddress!, own.count) == 0) }
    }
}
