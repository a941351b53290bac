internal import CJSONScan

/// Objects of the common kind read by one tight C loop (`cjsonscan_object`) before
/// `JSONCursor` is asked: claims sets and record lines whose names and strings are printable
/// ASCII without escapes and whose numbers are short non-negative integers.
///
/// The C scan accepts only texts the cursor accepts, with the same members, and declines
/// everything else, valid or not: the cursor then reads the text as before and words any
/// refusal. It never decides alone; a differential test holds the two scans to that.
enum JSONCommonScan {
    /// Calls `body` with the members of the object that is the whole of `text`, read by the C
    /// scan, and returns what it returns; nil, without calling it, for a text left to `JSONCursor`.
    static func withMembers<Result>(of text: UnsafeBufferPointer<UInt8>, maxDepth: Int,
                                    _ body: (UnsafeBufferPointer<cjsonscan_member>) -> Result) -> Result? {
        withUnsafeTemporaryAllocation(of: cjsonscan_member.self, capacity: Int(CJSONSCAN_MAX_MEMBERS)) { found in
            let count = cjsonscan_object(text.baseAddress, text.count, Int32(clamping: maxDepth), found.baseAddress, found.count)
            return count >= 0 ? body(UnsafeBufferPointer(rebasing: found[..<count])) : nil
        }
    }

    /// Appends the members of the object that is the whole of `text` to `sink`, which must take
    /// `CJSONSCAN_MAX_MEMBERS` more, and returns true; or returns false, appending nothing, for
    /// a text left to `JSONCursor`.
    static func members<Sink: JSONMemberSink>(of text: UnsafeBufferPointer<UInt8>, maxDepth: Int, into sink: inout Sink) -> Bool {
        withMembers(of: text, maxDepth: maxDepth) { append($0, to: &sink) } != nil
    }

    /// Appends the members a C scan read to `sink`, which must take `CJSONSCAN_MAX_MEMBERS` more.
    @inline(__always)
    private static func append<Sink: JSONMemberSink>(_ found: UnsafeBufferPointer<cjsonscan_member>, to sink: inout Sink) {
        do throws(JOSEError) {
            for member in found { try sink.append(JSONObjectIndex.Member(member)) }
        } catch {
            preconditionFailure("a member sink without room for \(CJSONSCAN_MAX_MEMBERS) members: \(error)")
        }
    }
}

extension JSONCommonScan {
    /// Appends the members of the object that is the whole of `text`, read by the C scan against
    /// `shape`'s names (`cjsonscan_layout`), to `sink`, which must take `CJSONSCAN_MAX_MEMBERS`
    /// more, and returns true; or returns false, appending nothing, for a text that departs from
    /// the shape or holds values of another kind.
    static func members<Sink: JSONMemberSink>(of text: UnsafeBufferPointer<UInt8>, following shape: JSONObjectShape, maxDepth: Int,
                                              into sink: inout Sink) -> Bool {
        withMembers(of: text, following: shape, maxDepth: maxDepth) { append($0, to: &sink) } != nil
    }

    /// Calls `body` with the members of the object that is the whole of `text`, read by the C
    /// scan against `shape`'s names, and returns what it returns; nil, without calling it, for a
    /// text that departs from the shape or holds values of another kind.
    static func withMembers<Result>(of text: UnsafeBufferPointer<UInt8>, following shape: JSONObjectShape, maxDepth: Int,
                                    _ body: (UnsafeBufferPointer<cjsonscan_member>) -> Result) -> Result? {
        withUnsafeTemporaryAllocation(of: cjsonscan_member.self, capacity: Int(CJSONSCAN_MAX_MEMBERS)) { found in
            let count = shape.text.withUnsafeBufferPointer { names in
                shape.names.withUnsafeBufferPointer { layout in
                    cjsonscan_layout(text.baseAddress, text.count, Int32(clamping: maxDepth), names.baseAddress, layout.baseAddress, layout.count, found.baseAddress)
                }
            }
            return count >= 0 ? body(UnsafeBufferPointer(rebasing: found[..<count])) : nil
        }
    }
}

extension JSONObjectIndex.Member {
    /// The member the C scan read, as `JSONCursor.skipObject` records it.
    init(_ scanned: cjsonscan_member) {
        guard let kind = JSONKind(rawValue: scanned.kind) else { preconditionFailure("the C scan wrote kind \(scanned.kind), which JSONKind does not number") }
        self.init(nameStart: scanned.name_start, nameEnd: scanned.name_end, valueStart: scanned.value_start, valueEnd: scanned.value_end,
                  kind: kind, nameWord: scanned.name_word, plainName: true, plainValue: true, integer: scanned.has_integer != 0 ? scanned.integer : nil)
    }
}
