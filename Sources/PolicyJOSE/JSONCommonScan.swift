internal import CJSONScan

/// Objects of the common kind read by one tight C loop (`cjsonscan_object`) before
/// `JSONCursor` is asked: claims sets and record lines whose names and strings are printable
/// ASCII without escapes and whose numbers are short non-negative integers.
///
/// The C scan accepts only texts the cursor accepts, with the same members, and declines
/// everything else, valid or not: the cursor then reads the text as before and words any
/// refusal. It never decides alone; a differential test holds the two scans to that.
enum JSONCommonScan {
    /// Appends the members of the object that is the whole of `text` to `sink`, which must take
    /// `CJSONSCAN_MAX_MEMBERS` more, and returns true; or returns false, appending nothing, for
    /// a text left to `JSONCursor`.
    static func members<Sink: JSONMemberSink>(of text: UnsafeBufferPointer<UInt8>, maxDepth: Int, into sink: inout Sink) -> Bool {
        withUnsafeTemporaryAllocation(of: cjsonscan_member.self, capacity: Int(CJSONSCAN_MAX_MEMBERS)) { found in
            let count = cjsonscan_object(text.baseAddress, text.count, Int32(clamping: maxDepth), found.baseAddress, found.count)
            guard count >= 0 else { return false }
            do throws(JOSEError) {
                for position in 0..<count { try sink.append(JSONObjectIndex.Member(found[position])) }
            } catch {
                preconditionFailure("a member sink without room for \(CJSONSCAN_MAX_MEMBERS) members: \(error)")
            }
            return true
        }
    }
}

extension JSONObjectIndex.Member {
    /// The member the C scan read, as `JSONCursor.skipObject` records it.
    init(_ scanned: cjsonscan_member) {
        self.init(nameStart: scanned.name_start, nameEnd: scanned.name_end, valueStart: scanned.value_start, valueEnd: scanned.value_end,
                  kind: JSONKind(rawValue: scanned.kind) ?? .null, nameWord: scanned.name_word, plainName: true, plainValue: true,
                  integer: scanned.has_integer != 0 ? scanned.integer : nil)
    }
}
