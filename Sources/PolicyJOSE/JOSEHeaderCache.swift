#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import Synchronization

/// Protected headers decoded recently, by their exact base64url text: the few headers an
/// issuer's tokens carry (one per key and type) are decoded once, not once per token.
///
/// A header is a function of its text and the depth bound it was parsed under, so a text seen
/// before answers with the header it decoded to, byte for byte the same input; a text not held
/// is decoded as usual and replaces the oldest entry. Decoding and parsing the header was a
/// tenth of judging an HMAC token, its lookup here a hundredth of that. Only headers that
/// decoded are kept, and only short ones (not `x5c` chains), so what a stream of hostile tokens
/// can do is make every lookup miss: a few comparisons of at most `entryCount` short texts.
package final class JOSEHeaderCache: Sendable {
    /// How many headers are held: enough for an issuer rotating keys and a few token types.
    package static let entryCount = 8
    /// The longest header text kept, in bytes.
    package static let maxTextBytes = 256

    private struct Entry: Sendable {
        let text: [UInt8]
        let maxDepth: Int
        let header: JOSEHeader
    }

    private struct Entries: Sendable {
        var slots: [Entry] = []
        /// The slot the next new header replaces, once all are taken.
        var next = 0
    }

    private let entries = Mutex(Entries())

    /// An empty cache.
    package init() {}

    /// How many headers are held.
    package var count: Int { entries.withLock { $0.slots.count } }

    /// The header whose base64url text is `text`, parsed under `maxDepth`: held, or made by
    /// `decode` and then held.
    func header(_ text: UnsafeBufferPointer<UInt8>, maxDepth: Int, decode: () throws(JOSEError) -> JOSEHeader) throws(JOSEError) -> JOSEHeader {
        guard text.count <= Self.maxTextBytes, !text.isEmpty, let base = text.baseAddress else { return try decode() }
        let held: JOSEHeader? = entries.withLock { entries in
            for entry in entries.slots where entry.text.count == text.count && entry.maxDepth == maxDepth {
                let equal = entry.text.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, text.count) == 0 }
                if equal { return entry.header }
            }
            return nil
        }
        if let held { return held }
        let header = try decode()
        let entry = Entry(text: Array(text), maxDepth: maxDepth, header: header)
        entries.withLock { entries in
            if entries.slots.count < Self.entryCount {
                entries.slots.append(entry)
            } else {
                entries.slots[entries.next] = entry
                entries.next = (entries.next + 1) % Self.entryCount
            }
        }
        return header
    }
}
