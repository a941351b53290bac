#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A JSON object read in place: each member's name and value as a byte range of the text,
/// checked as strictly as `JSONParser` checks a text it builds values from, but without building
/// any value.
///
/// Rules read a handful of a token's claims; building a tree of `String`s and `JSONValue`s for
/// every claim, then looking members up by `String` and releasing the tree, cost more than the
/// rest of judging an HMAC token. A member's value is built only when asked for, from its range.
/// A class, so that handing the index around retains one reference; its members lie in the
/// object itself (a `ManagedBuffer`), so an index is one allocation beside its text. Nothing in
/// it changes after `make`, so it may be shared across threads (`JSONObjectView` says so for it:
/// a `ManagedBuffer` cannot declare itself `Sendable`).
@usableFromInline package final class JSONObjectIndex: ManagedBuffer<JSONObjectIndex.Header, JSONObjectIndex.Member> {
    /// One member: where its name and value lie in `bytes`, and what the value is.
    @usableFromInline package struct Member: Sendable {
        /// The name between its quotes.
        let nameStart: Int32, nameEnd: Int32
        /// The whole value, quotes and brackets included.
        let valueStart: Int32, valueEnd: Int32
        let kind: JSONKind
        /// A plain name's first eight bytes as a little-endian word, zero beyond its end: most
        /// names are found, and told apart, by this word and their length alone.
        let nameWord: UInt64
        /// Whether the name, and for a string the value, has no escapes: its bytes are its text.
        let plainName: Bool, plainValue: Bool
        /// A number's value when it is an integer that fits, read while indexing: numeric dates
        /// are read by several rules.
        let integer: Int64?
    }

    /// What the index holds besides its members, immutable once made. Its fields are read
    /// through the header's pointer: `ManagedBuffer.header` is a class's stored `var`, and each
    /// read of it would go through a dynamic exclusivity check.
    @usableFromInline package struct Header {
        /// The object's text: a token's payload is a part of the bytes its JWS decoded to.
        let bytes: ArraySlice<UInt8>
        /// The number of members that follow the header.
        let count: Int
        /// The names written with escapes, decoded, by member position.
        let escapedNames: [Int: String]
        /// Where the registered claims are, found once for the rules that read them on every token.
        let registered: RegisteredClaimPositions
    }

    /// The members read in place: the elements of this object.
    private var members: UnsafeBufferPointer<Member> {
        withUnsafeMutablePointerToElements { UnsafeBufferPointer(start: $0, count: count) }
    }
    private var bytes: ArraySlice<UInt8> { withUnsafeMutablePointerToHeader { $0.pointee.bytes } }

    /// The member at `position`, which must be one of the index's: checked, as an array's
    /// subscript would be.
    @inline(__always) private func member(at position: Int) -> Member {
        let count = withUnsafeMutablePointerToHeader { $0.pointee.count }
        precondition(position >= 0 && position < count, "member \(position) of an index of \(count)")
        return withUnsafeMutablePointerToElements { $0[position] }
    }
    var escapedNames: [Int: String] { withUnsafeMutablePointerToHeader { $0.pointee.escapedNames } }

    /// Members read before they are placed in the index: on the stack up to `stackCapacity`,
    /// and past that in an array.
    private struct Gathered: JSONMemberSink {
        static let stackCapacity = 16
        let stack: UnsafeMutableBufferPointer<Member>
        var overflow: [Member] = []
        private(set) var count = 0

        init(stack: UnsafeMutableBufferPointer<Member>) {
            self.stack = stack
        }

        subscript(position: Int) -> Member { position < stack.count ? stack[position] : overflow[position - stack.count] }

        mutating func append(_ member: Member) throws(JOSEError) {
            if count < stack.count { stack.initializeElement(at: count, to: member) } else { overflow.append(member) }
            count += 1
        }

        /// Copies the members to `target`, which has room for `count`.
        func move(to target: UnsafeMutablePointer<Member>) {
            target.initialize(from: stack.baseAddress!, count: min(count, stack.count))
            if !overflow.isEmpty { overflow.withUnsafeBufferPointer { (target + stack.count).initialize(from: $0.baseAddress!, count: $0.count) } }
        }
    }

    /// Indexes `bytes`, which must hold one JSON object and nothing else.
    ///
    /// A text that follows none of `shapes` is read by the C scan of common objects
    /// (`JSONCommonScan`) when it is of that kind, by the cursor otherwise.
    ///
    /// - Parameter shapes: the layouts of objects indexed before: a text that names the same
    ///   members in the same order is indexed against its layout (names matched, not scanned:
    ///   quicker still than the C scan), and a new layout is held.
    /// - Throws: `invalid_json`, `duplicate_member` or `json_too_deep`, as `JSONParser` would for
    ///   the same text (`JSONObjectView` asks the parser itself for the message).
    package static func make(_ bytes: [UInt8], maxDepth: Int, shapes: JSONObjectShapes? = nil) throws(JOSEError) -> JSONObjectIndex {
        try make(bytes[...], maxDepth: maxDepth, shapes: shapes)
    }

    /// Indexes `bytes`, which must hold one JSON object and nothing else, keeping the slice (and
    /// so the array it is part of) rather than a copy.
    package static func make(_ bytes: ArraySlice<UInt8>, maxDepth: Int, shapes: JSONObjectShapes? = nil) throws(JOSEError) -> JSONObjectIndex {
        guard bytes.count < Int(Int32.max) else { throw JOSEError(.invalidJSON, "a JSON text of \(bytes.count) bytes is too large to index") }
        return try withUnsafeTemporaryAllocation(of: Member.self, capacity: Gathered.stackCapacity) { stack throws(JOSEError) in
            var members = Gathered(stack: stack)
            var escapedNames: [Int: String] = [:]
            var shaped: RegisteredClaimPositions?
            try bytes.withUnsafeBufferPointer { buffer throws(JOSEError) in
                var cursor = JSONCursor(bytes: buffer, maxDepth: min(maxDepth, JSONParser.deepestSupported))
                cursor.skipWhitespace()
                guard cursor.index < buffer.count, buffer[cursor.index] == UInt8(ascii: "{") else {
                    throw JOSEError(.invalidJSON, "not a JSON object")
                }
                if let shapes {
                    let firstName = cursor.firstNameOffset()
                    var tried = 0
                    while let shape = shapes.shape(startingAt: firstName, of: buffer, skipping: tried) {
                        var following = cursor
                        // The C scan first; the cursor follows the shape through values it declines.
                        if JSONCommonScan.members(of: buffer, following: shape, maxDepth: cursor.maxDepth, into: &members)
                            || (following.skipObject(following: shape, members: &members) && following.isAtEndAfterWhitespace()) {
                            if tried > 0 { shapes.promote(shape) }
                            shaped = shape.registered
                            return
                        }
                        members = Gathered(stack: stack)
                        tried += 1
                    }
                }
                if JSONCommonScan.members(of: buffer, maxDepth: cursor.maxDepth, into: &members) { return }
                try cursor.skipObject(depth: 1, members: &members, escapedNames: &escapedNames)
                guard cursor.isAtEndAfterWhitespace() else { throw cursor.error("unexpected content after the JSON value") }
            }
            let count = members.count
            let index = create(minimumCapacity: count) { index in
                index.withUnsafeMutablePointerToElements { members.move(to: $0) }
                let placed = index.withUnsafeMutablePointerToElements { UnsafeBufferPointer(start: $0, count: count) }
                return Header(bytes: bytes, count: count, escapedNames: escapedNames,
                              registered: shaped ?? RegisteredClaimPositions(placed, escapedNames: escapedNames))
            }
            let made = unsafeDowncast(index, to: JSONObjectIndex.self)
            if shaped == nil, let shapes, let shape = made.shape { shapes.remember(shape) }
            return made
        }
    }

    /// This object's layout, for indexing the next that repeats it; nil when a name has escapes
    /// or the object is too large to remember.
    private var shape: JSONObjectShape? {
        guard escapedNames.isEmpty else { return nil }
        let registered = withUnsafeMutablePointerToHeader { $0.pointee.registered }
        return bytes.withUnsafeBufferPointer { JSONObjectShape(members, text: $0, registered: registered) }
    }

    /// The number of members.
    package var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// The position of the member named `name` (compared code point for code point), if any.
    @usableFromInline package func position(of name: String) -> Int? {
        var name = name
        let members = self.members
        return name.withUTF8 { wanted in
            let word = NameWord(wanted)
            return bytes.withUnsafeBufferPointer { buffer in
                for position in members.indices {
                    let member = members[position]
                    if member.plainName {
                        if member.nameWord == word.value, Int(member.nameEnd - member.nameStart) == wanted.count,
                           NameWord.restEqual(buffer.baseAddress! + Int(member.nameStart), wanted.baseAddress, count: wanted.count) {
                            return position
                        }
                    } else if escapedNames[position].map({ Array($0.utf8).elementsEqual(wanted) }) == true {
                        return position
                    }
                }
                return nil
            }
        }
    }

    /// The position of the member named `name`, compared by word and length first.
    @_spi(RuleAuthoring) @usableFromInline package func position(of name: JSONMemberName) -> Int? {
        let count = name.count
        guard count <= 8 else { return position(of: name.text) }
        let members = self.members
        let found = members.indices.first { position in
            let member = members[position]
            return member.plainName && member.nameWord == name.word && Int(member.nameEnd - member.nameStart) == count
        }
        guard found == nil, !escapedNames.isEmpty else { return found }
        // A name written with escapes is found by its text: as rare as it is slow.
        return position(of: name.text)
    }

    /// The position of the registered claim `claim`'s member, if any: one load.
    @_spi(RuleAuthoring) @usableFromInline package func position(of claim: RegisteredClaim) -> Int? {
        withUnsafeMutablePointerToHeader { $0.pointee.registered[claim] }
    }

    /// Whether each registered claim the object has is of its common type (integer dates within
    /// ±2^60, string `iss`, `sub`, `aud`, `jti`, `azp` and `nonce`): one pass over their
    /// positions for the type check every token gets, which looks claim by claim only when
    /// this is false, to say what is wrong or to accept what is rarer (an `aud` array, a
    /// fractional date).
    @_spi(RuleAuthoring) @usableFromInline package var registeredClaimsHaveCommonTypes: Bool {
        withUnsafeMutablePointerToHeader { header in
            withUnsafeMutablePointerToElements { header.pointee.registered.haveCommonTypes($0) }
        }
    }

    /// The kind of the registered claim `claim`'s member; nil when there is none. One call
    /// for what rules ask of every token, where a position and then a kind took two.
    @_spi(RuleAuthoring) @usableFromInline package func kind(of claim: RegisteredClaim) -> JSONKind? {
        position(of: claim).map(kind(at:))
    }

    /// The registered claim `claim` when it is an integer that fits in 64 bits, in one call.
    @_spi(RuleAuthoring) @usableFromInline package func integer(of claim: RegisteredClaim) -> Int64? {
        position(of: claim).flatMap(integer(at:))
    }

    /// Whether the registered claim `claim` is a string equal to `text`, in one call.
    @_spi(RuleAuthoring) @usableFromInline package func string(_ claim: RegisteredClaim, equals text: String) -> Bool {
        position(of: claim).map { string(at: $0, equals: text) } ?? false
    }

    /// The kind of the member at `position`.
    @usableFromInline package func kind(at position: Int) -> JSONKind { member(at: position).kind }

    /// The name of the member at `position`.
    package func name(at position: Int) -> String {
        let member = member(at: position)
        guard member.plainName else { return escapedNames[position] ?? "" }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[Int(member.nameStart)..<Int(member.nameEnd)]), as: UTF8.self) }
    }

    /// The value of the member at `position`, built from its range.
    @usableFromInline package func value(at position: Int) -> JSONValue {
        let member = member(at: position)
        return bytes.withUnsafeBufferPointer { buffer in
            let range = Int(member.valueStart)..<Int(member.valueEnd)
            if let integer = member.integer { return .number(.integer(integer)) }
            if member.kind == .string, member.plainValue {
                return .string(String(decoding: UnsafeBufferPointer(rebasing: buffer[range.lowerBound + 1..<range.upperBound - 1]), as: UTF8.self))
            }
            do {
                return try JSONParser(maxDepth: JSONParser.deepestSupported).parse(UnsafeBufferPointer(rebasing: buffer[range]))
            } catch {
                // The range was checked by the same cursor when the index was made, at a depth
                // at least as great: parsing it again cannot fail.
                preconditionFailure("an indexed JSON value failed to parse: \(error)")
            }
        }
    }

    /// Where the member at `position` lies in the text between its quotes, when it is a string
    /// written without escapes: those bytes are then its text.
    package func plainStringRange(at position: Int) -> Range<Int>? {
        let member = member(at: position)
        guard member.kind == .string, member.plainValue else { return nil }
        return Int(member.valueStart) + 1..<Int(member.valueEnd) - 1
    }

    /// The member at `position` as an integer, when it is one that fits in 64 bits: read while
    /// indexing, so asking builds nothing.
    @usableFromInline package func integer(at position: Int) -> Int64? {
        member(at: position).integer
    }

    /// Whether the member at `position` is a string equal, code point for code point, to `text`,
    /// compared without building the member's string when it has no escapes.
    @usableFromInline package func string(at position: Int, equals text: String) -> Bool {
        let member = member(at: position)
        guard member.kind == .string else { return false }
        // The text's own bytes where it has them (every native string), borrowed: a mutable copy
        // for `withUTF8` retained it on every call.
        let compared = member.plainValue ? text.utf8.withContiguousStorageIfAvailable { wanted in
            bytes.withUnsafeBufferPointer { buffer in
                let start = Int(member.valueStart) + 1, count = Int(member.valueEnd) - 1 - start
                return count == wanted.count && (count == 0 || memcmp(buffer.baseAddress! + start, wanted.baseAddress!, count) == 0)
            }
        } : nil
        return compared ?? (value(at: position).stringValue?.isExactly(text) == true)
    }
}

/// The first eight bytes of a member name as a little-endian word, zero beyond its end.
struct NameWord {
    let value: UInt64

    /// The word of the name whose bytes are `name`.
    init(_ name: UnsafeBufferPointer<UInt8>) {
        var value: UInt64 = 0
        if let base = name.baseAddress { memcpy(&value, base, min(8, name.count)) }
        self.init(value: UInt64(littleEndian: value))
    }

    /// The word of the name of `count` bytes at `offset` of `text`, which has at least eight
    /// bytes from `offset` on whenever the name has a closing quote and a value after it.
    init(_ text: UnsafeBufferPointer<UInt8>, at offset: Int, count: Int) {
        guard offset + 8 <= text.count, let base = text.baseAddress else {
            self.init(UnsafeBufferPointer(rebasing: text[offset..<offset + count]))
            return
        }
        let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
        self.init(value: count >= 8 ? word : word & ((1 << (8 * UInt64(count))) - 1))
    }

    private init(value: UInt64) {
        self.value = value
    }

    /// Whether two names of `count` bytes whose words are equal are equal past their eighth byte.
    @inline(__always) static func restEqual(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>?, count: Int) -> Bool {
        count <= 8 || memcmp(lhs + 8, rhs! + 8, count - 8) == 0
    }
}

/// What kind of JSON value something is.
public enum JSONKind: UInt8, Sendable {
    case null, bool, number, string, array, object

    /// The kind's name in messages: "boolean", "number", "string", …
    public var name: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// Where `JSONCursor.skipObject` puts the members it reads: an index's array, or a buffer on the
/// stack (`JSONMemberScan`).
protocol JSONMemberSink {
    var count: Int { get }
    subscript(position: Int) -> JSONObjectIndex.Member { get }
    /// Adds a member; a sink that is full throws.
    mutating func append(_ member: JSONObjectIndex.Member) throws(JOSEError)
}

extension Array: JSONMemberSink where Element == JSONObjectIndex.Member {}

/// Reading a JSON text without building values: the checks of `parseValue`, in the same order,
/// with the same messages.
extension JSONCursor {
    /// Checks the value at the cursor and moves past it. Returns its kind, for a string
    /// whether it has no escapes, and for an integer that fits its value.
    mutating func skipValue(depth: Int) throws(JOSEError) -> (kind: JSONKind, plain: Bool, integer: Int64?) {
        guard index < bytes.count else { throw error("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var members: [JSONObjectIndex.Member] = [], escapedNames: [Int: String] = [:]
            try skipObject(depth: depth + 1, members: &members, escapedNames: &escapedNames)
            return (.object, true, nil)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1); return (.array, true, nil)
        case UInt8(ascii: "\""): return (.string, try skipString(), nil)
        case UInt8(ascii: "t"): try expectLiteral("true"); return (.bool, true, nil)
        case UInt8(ascii: "f"): try expectLiteral("false"); return (.bool, true, nil)
        case UInt8(ascii: "n"): try expectLiteral("null"); return (.null, true, nil)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let value = skipShortInteger() { return (.number, true, value) }
            if case let .integer(value) = try parseNumber() { return (.number, true, value) }
            return (.number, true, nil)
        case 0xEF where index == 0: throw error("a byte-order mark is not allowed before JSON")
        default: throw error("unexpected character \(describe(bytes[index]))")
        }
    }

    /// The value of the number at the cursor when it is a non-negative integer of at most
    /// eighteen digits (numeric dates), moving past it; nil, not moving, for any other number,
    /// which `parseNumber` reads and judges (leading zeros, fractions, exponents, signs).
    @inline(__always) mutating func skipShortInteger() -> Int64? {
        var end = index, value: Int64 = 0
        while end < bytes.count, end - index < 18, case let digit = bytes[end] &- UInt8(ascii: "0"), digit < 10 {
            value = value &* 10 &+ Int64(digit)
            end += 1
        }
        guard end > index, bytes[index] != UInt8(ascii: "0") || end == index + 1 else { return nil }
        if end < bytes.count {
            switch bytes[end] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        index = end
        return value
    }

    /// Checks a string and moves past it; true when it has no escapes, so its bytes between the
    /// quotes are its text.
    mutating func skipString() throws(JOSEError) -> Bool {
        let start = index + 1
        guard try scanString() else {
            _ = try parseEscapedString(from: start)
            return false
        }
        return true
    }

    /// Checks an object and moves past it, appending its members to `members`. Duplicate names
    /// are refused as `parseObject` refuses them: by their decoded bytes.
    mutating func skipObject<Members: JSONMemberSink>(depth: Int, members: inout Members, escapedNames: inout [Int: String]) throws(JOSEError) {
        try enter(depth: depth)
        let first = members.count
        var seen: Set<[UInt8]>? = nil
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes")
            }
            let nameStart = index
            var decodedName: String? = nil
            let plainName = try scanString()
            if !plainName { decodedName = try parseEscapedString(from: nameStart + 1) }
            let nameRange = nameStart + 1..<index - 1
            func nameBytes(_ member: JSONObjectIndex.Member, _ position: Int) -> [UInt8] {
                member.plainName ? Array(bytes[Int(member.nameStart)..<Int(member.nameEnd)]) : Array((escapedNames[position] ?? "").utf8)
            }
            let nameWord = plainName ? NameWord(bytes, at: nameRange.lowerBound, count: nameRange.count).value : 0
            let count = members.count - first
            if count < 16 {
                for position in first..<members.count {
                    let other = members[position]
                    let equal: Bool
                    if plainName, other.plainName {
                        equal = other.nameWord == nameWord && Int(other.nameEnd - other.nameStart) == nameRange.count
                            && NameWord.restEqual(bytes.baseAddress! + Int(other.nameStart), bytes.baseAddress! + nameRange.lowerBound, count: nameRange.count)
                    } else {
                        equal = nameBytes(other, position).elementsEqual(decodedName.map { Array($0.utf8) } ?? Array(bytes[nameRange]))
                    }
                    if equal { throw duplicate(at: nameStart) }
                }
            } else {
                if seen == nil { seen = Set((first..<members.count).map { nameBytes(members[$0], $0) }) }
                if !seen!.insert(decodedName.map { Array($0.utf8) } ?? Array(bytes[nameRange])).inserted { throw duplicate(at: nameStart) }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name")
            }
            index += 1
            skipWhitespace()
            let valueStart = index
            let (kind, plainValue, integer) = try skipValue(depth: depth)
            if let decodedName { escapedNames[members.count] = decodedName }
            try members.append(JSONObjectIndex.Member(nameStart: Int32(nameRange.lowerBound), nameEnd: Int32(nameRange.upperBound),
                                                  valueStart: Int32(valueStart), valueEnd: Int32(index),
                                                  kind: kind, nameWord: nameWord, plainName: plainName, plainValue: plainValue, integer: integer))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON inside an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            throw error("expected ',' or '}' in object")
        }
    }

    /// The duplicate-name error for the name starting at `offset`, worded as `parseObject`'s.
    mutating func duplicate(at offset: Int) -> JOSEError {
        index = offset
        let name = (try? parseString()) ?? ""
        return duplicate(name, at: offset)
    }

    /// Checks an array and moves past it.
    mutating func skipArray(depth: Int) throws(JOSEError) {
        try enter(depth: depth)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            _ = try skipValue(depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON inside an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return }
            throw error("expected ',' or ']' in array")
        }
    }
}
