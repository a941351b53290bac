import PolicyJOSE

/// A failure's message as a rule writes it, `"expired at \(date); evaluated at \(now)"`: its
/// parts copied into one buffer of about the final size, then made a string once.
///
/// Every invalid record of a log makes one: interpolated into a `String`, each part went
/// through the string's append (a uniqueness check, a growth when the reserve ran out), about
/// twice what copying the parts' bytes costs.
@_spi(RuleAuthoring) public struct FindingMessage: Sendable, ExpressibleByStringInterpolation {
    /// The message.
    public let text: String
    /// The UTF-8 bytes of `text` that quote the time judged at (`QuotedTime`), when it does.
    package let timeQuote: Range<Int>?

    /// A message already made.
    public init(_ text: String) {
        self.text = text
        timeQuote = nil
    }

    /// A message without interpolations: the literal itself, made no copy of.
    public init(stringLiteral text: String) {
        self.text = text
        timeQuote = nil
    }

    /// The message the interpolation's parts make, as one string.
    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        timeQuote = stringInterpolation.timeQuote
    }

    /// The parts of an interpolated message, as UTF-8: the first 128 bytes held in the
    /// interpolation itself (on the stack of the rule that writes the message), the rest, rarely
    /// any, in an array.
    ///
    /// Every invalid record's message is one: an array reserved for it, grown part by part
    /// (a uniqueness check and a capacity check each) and then decoded into the string cost an
    /// allocation and about a hundred instructions a part more than copying into fixed room.
    public struct StringInterpolation: StringInterpolationProtocol {
        private var head: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                           UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        private var headCount = 0
        private var rest: [UInt8] = []
        /// Where the time judged at was quoted, once.
        fileprivate private(set) var timeQuote: Range<Int>?
        private static let headCapacity = 128

        /// Room for the parts: `head` for a message of the usual length, else an array from the start.
        public init(literalCapacity: Int, interpolationCount: Int) {
            let expected = literalCapacity + 24 * interpolationCount
            if expected > Self.headCapacity { rest.reserveCapacity(expected) }
        }

        /// The message made of the parts.
        fileprivate var text: String {
            guard rest.isEmpty else { return String(decoding: rest, as: UTF8.self) }
            return withUnsafeBytes(of: head) { String(decoding: UnsafeRawBufferPointer(rebasing: $0[..<headCount]), as: UTF8.self) }
        }

        /// Appends `bytes`: into `head` while they fit there, else into `rest`, which then takes
        /// every byte from the first on.
        private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            if rest.isEmpty, headCount + bytes.count <= Self.headCapacity {
                let offset = headCount
                withUnsafeMutableBytes(of: &head) { $0.baseAddress!.advanced(by: offset).copyMemory(from: source, byteCount: bytes.count) }
                headCount += bytes.count
                return
            }
            if rest.isEmpty { withUnsafeBytes(of: head) { rest.append(contentsOf: $0[..<headCount]) } }
            rest.append(contentsOf: bytes)
        }

        /// A literal part, as it is.
        public mutating func appendLiteral(_ literal: String) {
            append(literal)
        }

        /// A string, as it is.
        public mutating func appendInterpolation(_ text: String) {
            append(text)
        }

        /// A part of a string, as it is.
        public mutating func appendInterpolation(_ text: Substring) {
            if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil { append(String(text)) }
        }

        /// An integer in decimal, as `"\(value)"` writes it.
        public mutating func appendInterpolation<Value: BinaryInteger>(_ value: Value) {
            guard let value = Int64(exactly: value) else { return append(String(value)) }
            DecimalDigits.write(value) { append($0) }
        }

        /// An `Int` in decimal: the generic form, called from a rule's module, is not
        /// specialized there.
        public mutating func appendInterpolation(_ value: Int) {
            DecimalDigits.write(Int64(value)) { append($0) }
        }

        /// An `Int64` in decimal (a leeway, a count of seconds), for the same reason.
        public mutating func appendInterpolation(_ value: Int64) {
            DecimalDigits.write(value) { append($0) }
        }

        /// A time as `2026-11-21T10:00:00Z`, as `"\(time)"` writes it: its digits written in
        /// place, where the string its description makes is an allocation of its own.
        public mutating func appendInterpolation(_ time: UnixTime) {
            if UnixTime.withISO8601Bytes(time.seconds, { append($0) }) == nil { append(time.iso8601) }
        }

        /// The time judged at, as `2026-11-21T10:00:00Z`, its place kept (`timeQuote`) so that a
        /// verdict reused at another time quotes that one. A second quote, or a time without that
        /// twenty-byte form, ties the verdict to this instant instead.
        public mutating func appendInterpolation(_ time: QuotedTime) {
            let start = byteCount
            if timeQuote == nil, UnixTime.withISO8601Bytes(time.instant.seconds, { append($0) }) != nil {
                timeQuote = start..<byteCount
            } else {
                appendInterpolation(time.context.now)
            }
        }

        /// The bytes appended so far.
        private var byteCount: Int { rest.isEmpty ? headCount : rest.count }

        /// Any other value, as `"\(value)"` writes it.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            append(String(describing: value))
        }

        /// A string's bytes, borrowed where they are contiguous (a literal, a native string, a
        /// small one): a mutable copy for `withUTF8` cost about a hundred instructions a part.
        private mutating func append(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
                var text = text
                text.withUTF8 { append($0) }
            }
        }
    }
}
