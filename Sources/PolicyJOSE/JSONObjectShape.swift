#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import Synchronization
internal import CJSONScan

/// The member names of an object indexed before, in their order and as their text wrote them:
/// the layout of a claims set, which every token of an issuer repeats.
///
/// An object whose text names the same members in the same order, each written byte for byte
/// as here, is indexed against the shape: its names are matched, not scanned, decoded, hashed
/// and compared with each other again. The values are checked as ever. That reads the same
/// members the scan would, since the scan's verdict on a name (a plain string, where it ends,
/// whether an earlier name equals it) depends on nothing but the name's bytes and those before.
final class JSONObjectShape: Sendable {
    /// Objects with more members are not remembered: what the index gathers on the stack.
    static let maxMembers = 16
    /// The longest run of names, quotes included, remembered.
    static let maxNameBytes = 512

    /// One member's name, as the cursor following the shape and the C scan (`cjsonscan_layout`)
    /// both read it: where it starts in `text` and its length, quotes included; its first eight
    /// bytes as a little-endian word and the mask of those that are the name's (most names are
    /// matched by one load and one comparison); and its word as the index keeps it (`NameWord`).
    typealias Name = cjsonscan_layout_name

    /// Each name with its quotes, one after another.
    let text: [UInt8]
    let names: [Name]
    /// Where the registered claims are among the members.
    let registered: RegisteredClaimPositions

    /// The shape of `members`, read from `text`, or nil when one of its names is written with
    /// escapes, or there are too many names or name bytes to remember.
    init?(_ members: UnsafeBufferPointer<JSONObjectIndex.Member>, text: UnsafeBufferPointer<UInt8>, registered: RegisteredClaimPositions) {
        guard !members.isEmpty, members.count <= Self.maxMembers, members.allSatisfy(\.plainName) else { return nil }
        var names: [UInt8] = [], starts: [Int] = []
        for member in members {
            starts.append(names.count)
            names.append(contentsOf: text[Int(member.nameStart) - 1..<Int(member.nameEnd) + 1])
        }
        guard names.count <= Self.maxNameBytes else { return nil }
        self.names = zip(members, starts).map { member, start in
            let quotedCount = Int(member.nameEnd - member.nameStart) + 2
            var head: UInt64 = 0
            _ = names.withUnsafeBufferPointer { memcpy(&head, $0.baseAddress! + start, min(8, quotedCount)) }
            return Name(start: Int32(start), quoted_count: Int32(quotedCount), head: UInt64(littleEndian: head),
                        head_mask: quotedCount >= 8 ? .max : (1 << (8 * UInt64(quotedCount))) - 1, word: member.nameWord)
        }
        self.text = names
        self.registered = registered
    }

    /// Whether `text` holds, at `offset`, the name `name` with its quotes.
    @inline(__always) static func matches(_ name: Name, in names: UnsafePointer<UInt8>, at offset: Int, of text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard offset + max(8, name.quotedCount) <= text.count else {
            return offset + name.quotedCount <= text.count && memcmp(names + name.offset, text.baseAddress! + offset, name.quotedCount) == 0
        }
        let word = UInt64(littleEndian: UnsafeRawPointer(text.baseAddress! + offset).loadUnaligned(as: UInt64.self))
        return word & name.headMask == name.head
            && (name.quotedCount <= 8 || memcmp(names + name.offset + 8, text.baseAddress! + offset + 8, name.quotedCount - 8) == 0)
    }

    /// Whether the text at `offset` of `text` begins with the first name, quotes included.
    func startsWithFirstName(at offset: Int, of text: UnsafeBufferPointer<UInt8>) -> Bool {
        self.text.withUnsafeBufferPointer { Self.matches(names[0], in: $0.baseAddress!, at: offset, of: text) }
    }
}

extension JSONObjectShape.Name {
    /// Where the name, with its quotes, starts in the shape's text.
    var offset: Int { Int(start) }
    /// The name's length with its quotes.
    var quotedCount: Int { Int(quoted_count) }
    /// The mask of `head`'s bytes that are the name's.
    var headMask: UInt64 { head_mask }
}

/// The few object shapes seen last, for indexing the next claims set against (`JSONObjectShape`).
///
/// Several may start with the same name (an issuer's access and ID tokens both with `iss`):
/// each is tried in turn, and the one that fits moves to the front. What a stream of hostile
/// texts can do is make every one miss: at most `capacity` failed matches before the scan (each
/// reading no further than the text, and most stopping at the first name), and a shape
/// remembered in place of the least recently fitted.
package final class JSONObjectShapes: Sendable {
    /// How many shapes are held: an issuer's few token types.
    static let capacity = 4

    private let held = Mutex<[JSONObjectShape]>([])

    /// An empty set of shapes.
    package init() {}

    /// The held shape whose first name is the text at `offset` of `text`, skipping the first
    /// `skipped` such shapes (tried already); front to back.
    func shape(startingAt offset: Int, of text: UnsafeBufferPointer<UInt8>, skipping skipped: Int = 0) -> JSONObjectShape? {
        held.withLock { held in
            var skipped = skipped
            for shape in held where shape.startsWithFirstName(at: offset, of: text) {
                if skipped == 0 { return shape }
                skipped -= 1
            }
            return nil
        }
    }

    /// Puts `shape`, which fitted a text, at the front, where the next text's search starts.
    func promote(_ shape: JSONObjectShape) {
        held.withLock { held in
            guard let position = held.firstIndex(where: { $0 === shape }), position > 0 else { return }
            held.remove(at: position)
            held.insert(shape, at: 0)
        }
    }

    /// Holds `shape` at the front, dropping the least recently fitted when all slots are taken.
    func remember(_ shape: JSONObjectShape) {
        held.withLock { held in
            if held.count == Self.capacity { held.removeLast() }
            held.insert(shape, at: 0)
        }
    }
}

extension JSONCursor {
    /// Where the first member's name would start, the cursor being at an object's `{`.
    func firstNameOffset() -> Int {
        var probe = self
        probe.index += 1
        probe.skipWhitespace()
        return probe.index
    }

    /// Whether nothing but whitespace follows the cursor, which moves past it.
    mutating func isAtEndAfterWhitespace() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// Checks an object whose names should be `shape`'s, in order, and moves past it, appending
    /// its members to `members`; false as soon as the text departs from the shape (another name,
    /// more or fewer members, or anything the scan would refuse), leaving the object to it.
    mutating func skipObject<Members: JSONMemberSink>(following shape: JSONObjectShape, members: inout Members) -> Bool {
        shape.text.withUnsafeBufferPointer { names in
            shape.names.withUnsafeBufferPointer { shapeNames in
                do {
                    try enter(depth: 1)
                    for position in shapeNames.indices {
                        let name = shapeNames[position]
                        skipWhitespace()
                        guard JSONObjectShape.matches(name, in: names.baseAddress!, at: index, of: bytes) else { return false }
                        let nameStart = index + 1
                        index += name.quotedCount
                        skipWhitespace()
                        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                        index += 1
                        skipWhitespace()
                        let valueStart = index
                        let (kind, plainValue, integer) = try skipValue(depth: 1)
                        try members.append(JSONObjectIndex.Member(nameStart: Int32(nameStart), nameEnd: Int32(nameStart + name.quotedCount - 2),
                                                                  valueStart: Int32(valueStart), valueEnd: Int32(index), kind: kind, nameWord: name.word,
                                                                  plainName: true, plainValue: plainValue, integer: integer))
                        skipWhitespace()
                        let closing = position == shapeNames.count - 1 ? UInt8(ascii: "}") : UInt8(ascii: ",")
                        guard index < bytes.count, bytes[index] == closing else { return false }
                        index += 1
                    }
                    return true
                } catch {
                    return false
                }
            }
        }
    }
}
