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

    /// A message already made.
    public init(_ text: String) {
        self.text = text
    }

    /// A message without interpolations: the literal itself, made no copy of.
    public init(stringLiteral text: String) {
        self.text = text
    }

    /// The message the interpolation's parts make, as one string.
    public init(stringInterpolation: StringInterpolation) {
        text = String(decoding: stringInterpolation.bytes, as: UTF8.self)
    }

    /// The parts of an interpolated message, as UTF-8.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var bytes: [UInt8] = []

        /// Room for the literal text and, for each value, as much as a date or a short name takes.
        public init(literalCapacity: Int, interpolationCount: Int) {
            bytes.reserveCapacity(literalCapacity + 24 * interpolationCount)
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
            if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: text.utf8) }
        }

        /// An integer in decimal, as `"\(value)"` writes it.
        public mutating func appendInterpolation<Value: BinaryInteger>(_ value: Value) {
            guard let value = Int64(exactly: value) else { return append(String(value)) }
            DecimalDigits.append(value, to: &bytes)
        }

        /// An `Int` in decimal: the generic form, called from a rule's module, is not
        /// specialized there.
        public mutating func appendInterpolation(_ value: Int) {
            DecimalDigits.append(Int64(value), to: &bytes)
        }

        /// An `Int64` in decimal (a leeway, a count of seconds), for the same reason.
        public mutating func appendInterpolation(_ value: Int64) {
            DecimalDigits.append(value, to: &bytes)
        }

        /// A time as `2026-11-21T10:00:00Z`, as `"\(time)"` writes it: its digits written in
        /// place, where the string its description makes is an allocation of its own.
        public mutating func appendInterpolation(_ time: UnixTime) {
            if UnixTime.withISO8601Bytes(time.seconds, { bytes.append(contentsOf: $0) }) == nil { append(time.iso8601) }
        }

        /// Any other value, as `"\(value)"` writes it.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            append(String(describing: value))
        }

        private mutating func append(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: text.utf8) }
        }
    }
}
