internal import PolicyCrypto
@_spi(JSONWriting) @_spi(RuleAuthoring) import PolicyJOSE

/// One stored key set of a source's history: when it was seen published, and the file that holds
/// it, named by the SHA-256 of its bytes (`policy-run keys snapshot`).
public struct KeySnapshot: Sendable, Codable, Equatable, CustomStringConvertible {
    /// When the set was fetched.
    public let seen: UnixTime
    /// The file in the history directory: `sha256-<64 hex digits>.json`.
    public let file: String

    /// A snapshot seen at `seen` and stored in `file`.
    package init(seen: UnixTime, file: String) {
        self.seen = seen
        self.file = file
    }

    /// `2026-11-01T00:00:00Z (sha256-….json)`, as messages name it.
    public var description: String { "\(seen) (\(file))" }

    private enum CodingKeys: String, CodingKey {
        case seen, file
    }

    /// Reads `{"seen": RFC 3339, "file": ...}`, as verdicts write it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .seen)
        guard let seen = UnixTime.parseRFC3339(text) else {
            throw DecodingError.dataCorruptedError(forKey: .seen, in: container, debugDescription: "'seen' must be an RFC 3339 time")
        }
        self.init(seen: UnixTime(seconds: seen), file: try container.decode(String.self, forKey: .file))
    }

    /// Encodes `{"seen": RFC 3339, "file": ...}`, what `write(to:)` writes.
    public func encode(to encoder: any Encoder) throws {
        try JSONWriter.value(write).encode(to: encoder)
    }

    /// Writes `{"seen": RFC 3339, "file": ...}`.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("seen", seen.iso8601)
        writer.member("file", file)
        writer.endObject()
    }

    /// Whether `name` is a content address this history writes: `sha256-` and 64 lowercase hex digits, `.json`.
    static func isContentAddress(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 7 + 64 + 5, name.hasPrefix("sha256-"), name.hasSuffix(".json") else { return false }
        return bytes[7..<71].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}

extension KeySnapshot {
    /// The name a key set's bytes are stored under: `sha256-` and the hex digest, `.json`.
    static func contentAddress(of bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var name = Array("sha256-".utf8)
        for byte in DigestAlgorithm.sha256.hash(bytes) {
            name.append(digits[Int(byte >> 4)])
            name.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: name, as: UTF8.self) + ".json"
    }
}
