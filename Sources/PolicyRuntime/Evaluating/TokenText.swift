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
    /// The token given as text; nil for one that is bytes of a line.
    private let string: String?
    /// The bytes of a line that hold the token, valid UTF-8 (the line's JSON was checked);
    /// empty for a token given as text.
    ///
    /// Two fields rather than an enum of the two: reading an enum's payload copied it, a
    /// retain and release of the line each time a record's token was read.
    private let line: ArraySlice<UInt8>

    /// A token given as text.
    package init(_ text: String) {
        string = text
        line = []
    }

    /// The token written without escapes in `line`, a part of a line whose JSON was checked, so
    /// its bytes are valid UTF-8 and are the token's text.
    init(line: ArraySlice<UInt8>) {
        string = nil
        self.line = line
    }

    /// The token as a cache keeps it: bytes of a line copied out, since the line may be a part
    /// of a block of lines (`LineReader.nextLines`) that would otherwise stay in memory as long
    /// as the token.
    var kept: TokenText {
        string == nil ? TokenText(line: ArraySlice(Array(line))) : self
    }

    /// The token's text.
    package var text: String {
        string ?? String(decoding: line, as: UTF8.self)
    }

    /// The token's size in UTF-8 bytes.
    var byteCount: Int {
        string?.utf8.count ?? line.count
    }

    /// Calls `body` with the token's UTF-8 bytes. Inlined: a call made with a closure that
    /// captured an object took the object over, a retain and release a call.
    @inline(__always)
    func withUTF8<Value, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value) throws(Failure) -> Value {
        if var text = string { return try text.withUTF8 { text in Result { () throws(Failure) in try body(text) } }.get() }
        // Typed throws straight through where the standard library passes them (`String.withUTF8`
        // does not): a value wrapped in a `Result` to carry the error type was copied out of it and
        // the wrapper destroyed (a decoded JWS: a retain and release of each of its references).
        return try line.withUnsafeBufferPointer { (line) throws(Failure) -> Value in try body(line) }
    }

    /// Whether the token's bytes are `bytes`, byte for byte: `==` on strings would take two
    /// canonically equivalent texts (a JSON serialization's header written with a decomposed
    /// accent) for one.
    func hasBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        withUTF8 { own in own.count == bytes.count && (own.isEmpty || memcmp(own.baseAddress!, bytes.baseAddress!, own.count) == 0) }
    }
}
