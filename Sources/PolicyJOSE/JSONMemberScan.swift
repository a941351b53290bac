internal import CJSONScan

/// Two members of a small JSON object, read by one strict scan that keeps the members in a
/// buffer on the stack: a token log's record line, read once per record, then makes no index
/// object and no array of members.
///
/// The text is checked exactly as `JSONObjectIndex` checks it (the C scan of common objects,
/// then the same cursor); whatever the scan does not answer itself, it leaves to the index by
/// returning nil.
package enum JSONMemberScan {
    /// The most members a scanned object may have: a record line has a handful, and the buffer
    /// stays well within what `withUnsafeTemporaryAllocation` places on the stack.
    static let capacity = 16

    /// A member found.
    package struct Found: Sendable {
        package let kind: JSONKind
        /// The whole value in the text, quotes and brackets included.
        package let range: Range<Int>
        /// Whether a string has no escapes: its bytes between the quotes are its text.
        package let plain: Bool
        /// A number's value, when it is an integer that fits.
        package let integer: Int64?

        /// Where a string written without escapes lies between its quotes.
        package var plainText: Range<Int>? {
            kind == .string && plain ? range.lowerBound + 1..<range.upperBound - 1 : nil
        }
    }

    /// The members named `first` and `second` of the object `bytes` holds, nil for a name it
    /// does not have. The scan itself is nil when it leaves the answer to `JSONObjectIndex`:
    /// a text the index refuses (so the refusal is worded as the index words it), a name
    /// written with escapes, or more than `capacity` members.
    package static func members(_ first: JSONMemberName, _ second: JSONMemberName?, in bytes: [UInt8],
                                maxDepth: Int) -> (first: Found?, second: Found?)? {
        var layout = JSONLineLayout()
        return members(first, second, in: bytes, maxDepth: maxDepth, layout: &layout)
    }

    /// `members(_:_:in:maxDepth:)` for one of a run of lines that name the same members in the
    /// same order (a token log's): `layout` holds the names of the last line the C scan read,
    /// which the next is matched against (`cjsonscan_layout`) before it is scanned.
    package static func members(_ first: JSONMemberName, _ second: JSONMemberName?, in bytes: [UInt8],
                                maxDepth: Int, layout: inout JSONLineLayout) -> (first: Found?, second: Found?)? {
        bytes.withUnsafeBufferPointer { members(first, second, in: $0, maxDepth: maxDepth, layout: &layout) }
    }

    /// `members(_:_:in:maxDepth:layout:)` of a text read in place.
    package static func members(_ first: JSONMemberName, _ second: JSONMemberName?, in text: UnsafeBufferPointer<UInt8>,
                                maxDepth: Int, layout: inout JSONLineLayout) -> (first: Found?, second: Found?)? {
        guard text.count < Int(Int32.max) else { return nil }
        let maxDepth = min(maxDepth, JSONParser.deepestSupported)
        func found(_ scanned: UnsafeBufferPointer<cjsonscan_member>) -> (first: Found?, second: Found?) {
            let found = scanned.lazy.map(JSONObjectIndex.Member.init)
            return (find(first, found, text), second.flatMap { find($0, found, text) })
        }
        if let shape = layout.borrowedShape,
           let following = shape._withUnsafeGuaranteedRef({ JSONCommonScan.withMembers(of: text, following: $0, maxDepth: maxDepth, found) }) {
            return following
        }
        let common = JSONCommonScan.withMembers(of: text, maxDepth: maxDepth) { scanned in
            layout.learn(scanned, of: text)
            return found(scanned)
        }
        if let common { return common }
        return withUnsafeTemporaryAllocation(of: JSONObjectIndex.Member.self, capacity: capacity) { storage in
            var members = StackMembers(storage: storage)
            guard scan(text, maxDepth: maxDepth, into: &members) else { return nil }
            let found = UnsafeBufferPointer(rebasing: storage[..<members.count])
            return (find(first, found, text), second.flatMap { find($0, found, text) })
        }
    }

    /// Reads `text` with `JSONCursor` into `members`; false for a text the index would refuse or
    /// word differently (a name with escapes, too many members).
    private static func scan(_ text: UnsafeBufferPointer<UInt8>, maxDepth: Int, into members: inout StackMembers) -> Bool {
        var escapedNames: [Int: String] = [:]
        var cursor = JSONCursor(bytes: text, maxDepth: maxDepth)
        do throws(JOSEError) {
            cursor.skipWhitespace()
            guard cursor.index < text.count, text[cursor.index] == UInt8(ascii: "{") else { return false }
            try cursor.skipObject(depth: 1, members: &members, escapedNames: &escapedNames)
            cursor.skipWhitespace()
            return cursor.index == text.count && escapedNames.isEmpty
        } catch {
            return false
        }
    }

    /// The member named `name` among `members`, read from `text`.
    private static func find<Members: Sequence>(_ name: JSONMemberName, _ members: Members, _ text: UnsafeBufferPointer<UInt8>) -> Found?
    where Members.Element == JSONObjectIndex.Member {
        members.first { $0.nameWord == name.word && Int($0.nameEnd - $0.nameStart) == name.count && name.restEquals(text.baseAddress! + Int($0.nameStart)) }
            .map(Found.init)
    }

    /// Members in a buffer of `capacity`; one more is refused.
    private struct StackMembers: JSONMemberSink {
        let storage: UnsafeMutableBufferPointer<JSONObjectIndex.Member>
        private(set) var count = 0

        init(storage: UnsafeMutableBufferPointer<JSONObjectIndex.Member>) {
            self.storage = storage
        }

        subscript(position: Int) -> JSONObjectIndex.Member { storage[position] }

        mutating func append(_ member: JSONObjectIndex.Member) throws(JOSEError) {
            guard count < storage.count else { throw JOSEError(.invalidJSON, "more than \(storage.count) members to scan") }
            storage.initializeElement(at: count, to: member)
            count += 1
        }
    }
}

extension JSONMemberScan.Found {
    /// The member `member` of an index or a scan.
    init(_ member: JSONObjectIndex.Member) {
        self.init(kind: member.kind, range: Int(member.valueStart)..<Int(member.valueEnd), plain: member.plainValue, integer: member.integer)
    }
}

/// The names of the record line read last, in order (`JSONMemberScan.members(_:_:in:maxDepth:layout:)`):
/// a token log's lines repeat them. Kept by one reader of lines, which no other thread shares.
package struct JSONLineLayout {
    private var shape: JSONObjectShape? {
        didSet { borrowedShape = shape.map(Unmanaged.passUnretained) }
    }
    /// `shape`, read without a retain and release a line: it lives as long as `shape` holds
    /// it, which no scan following it changes.
    fileprivate private(set) var borrowedShape: Unmanaged<JSONObjectShape>?

    /// No line read yet.
    package init() {}

    /// Remembers the names of `members`, read by the C scan from `text`, unless a shape of
    /// them cannot be held (`JSONObjectShape`).
    fileprivate mutating func learn(_ members: UnsafeBufferPointer<cjsonscan_member>, of text: UnsafeBufferPointer<UInt8>) {
        let placed = members.map(JSONObjectIndex.Member.init)
        shape = placed.withUnsafeBufferPointer { placed in
            JSONObjectShape(placed, text: text, registered: RegisteredClaimPositions(placed, escapedNames: [:]))
        }
    }
}
