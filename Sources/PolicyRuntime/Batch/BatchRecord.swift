#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
@_spi(RuleAuthoring) package import PolicyJOSE

/// How a token log is laid out: JSON lines with named fields, or one bare token per line.
package struct BatchRecordFormat: Sendable {
    /// How a log line holds its record.
    package enum Layout: Sendable {
        /// `{"token": "...", "ts": 1795253400, ...}` per line.
        case jsonLines
        /// A compact token per line, nothing else.
        case lines
    }

    /// JSON lines or bare tokens.
    package var layout: Layout
    /// The field holding the token (JSON lines).
    package var tokenField: String {
        get { tokenName.text }
        set { tokenName = JSONMemberName(newValue) }
    }
    /// The field holding the record's time: unix seconds or RFC 3339 (JSON lines).
    package var timeField: String? {
        get { timeName?.text }
        set { timeName = newValue.map(JSONMemberName.init) }
    }
    /// The two fields' names, prepared once for every line's lookups.
    private var tokenName: JSONMemberName
    private var timeName: JSONMemberName?
    /// Policy inputs taken from record fields: input name → field name.
    package var inputFields: [String: String]

    /// A record format; the defaults read `{"token": …, "ts": …}` lines.
    package init(layout: Layout = .jsonLines, tokenField: String = "token", timeField: String? = "ts", inputFields: [String: String] = [:]) {
        self.layout = layout
        tokenName = JSONMemberName(tokenField)
        timeName = timeField.map(JSONMemberName.init)
        self.inputFields = inputFields
    }

    /// The record a line holds, read as a batch worker reads it: the common case scanned
    /// (`scannedToken`), any other line parsed whole, or every line parsed whole when `scanning`
    /// is false; nil for a blank line, which is not a record.
    package func record(_ line: LineReader.Line, input: String? = nil, scanning: Bool = true) -> BatchRecord? {
        if Self.isBlank(line) { return nil }
        var layout = JSONLineLayout()
        let bytes = line.bytes
        if scanning, let scanned = bytes.withUnsafeBufferPointer({ scannedToken($0, tooLong: line.tooLong, lineLayout: &layout) }) {
            let token = TokenText(line: bytes[bytes.startIndex + scanned.token.lowerBound..<bytes.startIndex + scanned.token.upperBound])
            return BatchRecord(line: line.number, input: input, content: .token(token, time: scanned.time, inputs: [:]))
        }
        return parsed(line, input: input)
    }

    /// Whether a line holds nothing but spaces, tabs and a carriage return: not a record. A line
    /// cut at `--max-line-bytes` is never blank: what follows the cut is unread, and a record
    /// after a long run of spaces must get its `record_malformed` verdict, not vanish.
    static func isBlank(_ line: LineReader.Line) -> Bool {
        line.bytes.withUnsafeBufferPointer { isBlank($0, tooLong: line.tooLong) }
    }

    /// `isBlank` of a line whose bytes are `bytes`, cut when `tooLong`.
    static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>, tooLong: Bool) -> Bool {
        !tooLong && bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// The offset of the first control byte other than a tab, looked for eight bytes at a time:
    /// lines are long runs of printable bytes.
    static func firstControlByte(_ bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            if let base = buffer.baseAddress {
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                // A byte below 0x20 shows as a high bit in (word - 0x20s) & ~word; bytes of 0x80
                // and above never do.
                while index + 8 <= buffer.count {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    if (word &- ones &* 0x20) & ~word & highs != 0 { break }
                    index += 8
                }
            }
            while index < buffer.count {
                if buffer[index] < 0x20, buffer[index] != 0x09 { return index }
                index += 1
            }
            return nil
        }
    }

    /// Whether `bytes` hold a carriage return, found by `memchr` at vector speed.
    static func holdsCarriageReturn(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer(holdsCarriageReturn)
    }

    /// `holdsCarriageReturn` of bytes read in place.
    static func holdsCarriageReturn(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.baseAddress.map { memchr($0, 0x0D, bytes.count) != nil } ?? false
    }

    /// The record a line that is not blank holds, parsed whole: what a line the scan of the
    /// common case (`scannedToken`) did not read holds, and every refusal, worded.
    func parsed(_ line: LineReader.Line, input: String?) -> BatchRecord {
        let bytes = line.bytes
        func malformed(_ code: FindingCode, _ message: String) -> BatchRecord {
            BatchRecord(line: line.number, input: input, content: .malformed(code, message))
        }
        if line.tooLong { return malformed(.recordMalformed, "the line is longer than \(bytes.count) bytes; it was skipped") }
        func controlByte() -> BatchRecord? {
            Self.firstControlByte(bytes).map { control in
                malformed(.recordMalformed, "the line holds a control byte (0x\(String(bytes[bytes.startIndex + control], radix: 16))) at column \(control + 1): binary data, not a record")
            }
        }
        switch layout {
        case .lines:
            if let refused = controlByte() { return refused }
            // Blank lines were skipped above, so some byte is neither a space nor a tab.
            let first = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 }!, last = bytes.lastIndex { $0 != 0x20 && $0 != 0x09 }!
            guard let text = String(validating: bytes[first...last], as: UTF8.self) else { return malformed(.recordMalformed, "the line is not UTF-8") }
            return BatchRecord(line: line.number, input: input, content: .token(TokenText(text), time: nil, inputs: [:]))
        case .jsonLines:
            let object: JSONObjectView
            do {
                object = try JSONObjectView(bytes, maxDepth: JSONParser().maxDepth) { bytes throws(JOSEError) in try JSONParser().parseObject(bytes, what: "a record") }
            } catch {
                return controlByte() ?? malformed(.recordMalformed, "the line is not a JSON object: \(error.message)")
            }
            // JSON allows no control byte but whitespace, and a line holds no line feed: a line
            // that indexes holds a control byte only if it holds a carriage return, which memchr
            // finds at vector speed. The byte-by-byte search runs only for a line that holds one
            // or fails, to say where.
            if Self.holdsCarriageReturn(bytes), let refused = controlByte() { return refused }
            let token: TokenText
            // A token written without escapes stays bytes of the line until it is judged.
            if let range = object.plainStringRange(of: tokenName) {
                token = TokenText(line: bytes[bytes.startIndex + range.lowerBound..<bytes.startIndex + range.upperBound])
            } else {
                switch object[tokenName] {
                case let .string(text)?:
                    token = TokenText(text)
                case let .object(serialized)?:
                    // A JWS or JWE in JSON serialization (RFC 7515/7516 §7.2), written as an object:
                    // its members are strings, which writing it again leaves as they were signed.
                    token = TokenText(String(decoding: JSONValue.object(serialized).serializedBytes(), as: UTF8.self))
                default:
                    return malformed(.recordFieldMissing, object.kind(of: tokenField).map { "the record's '\(tokenField)' is \($0.name), not a token string or a JSON-serialized token" }
                                                         ?? "the record has no '\(tokenField)' field")
                }
            }
            var time: UnixTime?
            if let timeName, let value = object[timeName], value != .null {
                switch value {
                case let .number(number): time = UnixTime.checked(number.doubleValue)
                case let .string(text): time = UnixTime(parsing: text)
                default: time = nil
                }
                guard time != nil else {
                    return malformed(.recordTimeInvalid, "the record's '\(timeName)' is neither unix seconds nor an RFC 3339 time")
                }
            }
            var inputs: [String: JSONValue] = [:]
            for (name, field) in inputFields {
                if let value = object[field], value != .null { inputs[name] = value }
            }
            return BatchRecord(line: line.number, input: input, content: .token(token, time: time, inputs: inputs))
        }
    }
}

extension BatchRecordFormat {
    /// What a worker judging a line at once needs of it (`scannedToken`). A struct, not a tuple:
    /// an optional tuple was copied through its generic value witnesses, with its metadata
    /// looked up at run time, a record.
    struct ScannedLine {
        /// Where the token lies in the line, between its quotes: its bytes are its text.
        let token: Range<Int>
        let time: UnixTime?
    }

    /// The token and time of a line that is not blank, its bytes `text` (cut when `tooLong`),
    /// when it is a JSON line as the common case has it, read without an index object
    /// (`JSONMemberScan`): the token a string without escapes, the time absent, null or whole
    /// seconds, no mapped inputs, no carriage return. What a worker judging the line at once
    /// needs of it, read in place, without a record made to hold them; `lineLayout` holds the
    /// members of the lines read before it. Nil leaves the line to `parsed`, which reads every
    /// other line and words every refusal.
    func scannedToken(_ text: UnsafeBufferPointer<UInt8>, tooLong: Bool, lineLayout: inout JSONLineLayout) -> ScannedLine? {
        guard case .jsonLines = layout, inputFields.isEmpty, !tooLong else { return nil }
        guard let (token, time) = JSONMemberScan.members(tokenName, timeName, in: text, maxDepth: JSONParser().maxDepth, layout: &lineLayout),
              let range = token?.plainText else { return nil }
        var when: UnixTime?
        if let time, time.kind != .null {
            guard let seconds = time.integer, let checked = UnixTime.checked(Double(seconds)) else { return nil }
            when = checked
        }
        guard !Self.holdsCarriageReturn(text) else { return nil }
        return ScannedLine(token: range, time: when)
    }
}

/// A record format held once for every record of an input (`BatchRecord.Content.unparsed`).
package final class SharedRecordFormat: Sendable {
    package let format: BatchRecordFormat

    package init(_ format: BatchRecordFormat) {
        self.format = format
    }

    /// The record `line` of `input` holds (`BatchRecordFormat.parsed`), read with the format in
    /// place: `format.parsed` called from outside copied the format, retaining each of its names.
    func parsed(_ line: LineReader.Line, input: String?) -> BatchRecord {
        format.parsed(line, input: input)
    }

    /// The token and time of a line as the common case has them (`BatchRecordFormat.scannedToken`).
    func scannedToken(_ text: UnsafeBufferPointer<UInt8>, tooLong: Bool, lineLayout: inout JSONLineLayout) -> BatchRecordFormat.ScannedLine? {
        format.scannedToken(text, tooLong: tooLong, lineLayout: &lineLayout)
    }
}

/// One record of a token log, as read.
package struct BatchRecord: Sendable {
    /// What a line turned out to hold.
    package enum Content: Sendable {
        /// A token, the record's time (nil: use the run's default), and its mapped inputs.
        case token(TokenText, time: UnixTime?, inputs: [String: JSONValue])
        /// A line that holds no usable record, with the finding it becomes.
        case malformed(FindingCode, String)
        /// A line not parsed yet (never blank): the worker that judges it parses it with the
        /// format, so records are parsed in parallel rather than on the task that reads. The
        /// format is its input's, held once: a record moves between tasks and arrays several
        /// times, and a copy of the format's names and fields each time cost more than parsing.
        case unparsed(LineReader.Line, SharedRecordFormat)
    }

    /// The 1-based line number in its input.
    package let line: Int
    /// The input's name, when a run reads several.
    package let input: String?
    /// The token with its time and inputs, or why the line is malformed.
    package let content: Content

    /// A record read from `line` of `input`.
    package init(line: Int, input: String?, content: Content) {
        self.line = line
        self.input = input
        self.content = content
    }
}
