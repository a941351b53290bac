import Foundation
@_spi(RuleAuthoring) import PolicyRuntime
@_spi(RuleAuthoring) import PolicyJOSE

/// The JSON parser: what it accepts, Foundation accepts too and reads alike; what it accepts
/// serializes and parses back to the same value; the in-place index agrees with it.
enum JSONFuzzing {
    static func run(_ data: [UInt8]) {
        indexAgrees(data)
        guard let value = try? JSONParser(maxDepth: 128).parse(data) else { return }
        let again = try? JSONParser(maxDepth: 128).parse(value.serializedBytes())
        invariant(again == value, "a parsed value does not survive serialization")
        // Foundation reads numbers as doubles and unescapes strings the same way; it is the
        // reference for what JSON means, not for what is refused (ours refuses more).
        guard let reference = try? JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed]) else {
            invariant(false, "accepted JSON that Foundation refuses")
            return
        }
        invariant(agrees(value, reference), "a value Foundation reads differently")
    }

    /// The in-place index (how claims and batch records are read) refuses exactly the texts the
    /// parser refuses as an object, and reads the same members: names, kinds, values, lookups.
    static func indexAgrees(_ data: [UInt8]) {
        let index = try? JSONObjectIndex.make(data, maxDepth: 128)
        shapedIndexAgrees(data, with: index)
        guard case let .object(object)? = try? JSONParser(maxDepth: 128).parse(data) else {
            invariant(index == nil, "the index accepts a text the parser refuses as an object")
            return
        }
        guard let index else {
            invariant(false, "the index refuses an object the parser accepts")
            return
        }
        invariant(index.count == object.count, "the index counts other members than the parser")
        for (position, member) in object.members.enumerated() where position < index.count {
            invariant(index.name(at: position).isExactly(member.name), "the index names a member otherwise")
            invariant(index.position(of: member.name) == position, "the index finds a member elsewhere")
            invariant(index.kind(at: position) == member.value.kind && index.value(at: position) == member.value, "the index reads a value otherwise")
            if let text = member.value.stringValue {
                invariant(index.string(at: position, equals: text) && !index.string(at: position, equals: text + "x"), "the index compares a string otherwise")
            }
        }
    }

    /// Layouts of the inputs indexed so far: each input is indexed against them too, which
    /// mutations of an input seen before exercise.
    static let shapes = JSONObjectShapes()

    /// Indexed against a layout seen before, a text reads exactly as it reads scanned.
    static func shapedIndexAgrees(_ data: [UInt8], with index: JSONObjectIndex?) {
        let shaped = try? JSONObjectIndex.make(data, maxDepth: 128, shapes: shapes)
        guard let index, let shaped else {
            invariant(index == nil && shaped == nil, "indexing against a layout accepts otherwise than scanning")
            return
        }
        invariant(shaped.count == index.count, "indexing against a layout counts other members")
        for position in 0..<min(index.count, shaped.count) {
            invariant(shaped.name(at: position).isExactly(index.name(at: position)) && shaped.value(at: position) == index.value(at: position)
                      && shaped.plainStringRange(at: position) == index.plainStringRange(at: position),
                      "indexing against a layout reads a member otherwise")
        }
        for claim in RegisteredClaim.allCases {
            invariant(shaped.position(of: claim) == index.position(of: claim), "indexing against a layout finds a registered claim elsewhere")
        }
    }

    static func agrees(_ value: JSONValue, _ reference: Any) -> Bool {
        switch value {
        case .null: return reference is NSNull
        case let .bool(flag):
            return (reference as? NSNumber)?.boolValue == flag
        case let .number(number):
            guard let other = reference as? NSNumber else { return false }
            let (ours, theirs) = (number.doubleValue, other.doubleValue)
            return ours == theirs || abs(ours - theirs) <= abs(ours) * 1e-12
        case let .string(text):
            guard let other = reference as? String else { return false }
            return text.isExactly(other) || withoutMarks(text) == withoutMarks(other)
        case let .array(items):
            guard let other = reference as? [Any], other.count == items.count else { return false }
            return zip(items, other).allSatisfy { agrees($0, $1) }
        case let .object(object):
            guard let other = reference as? [String: Any] else { return false }
            // Foundation's dictionary merges names Swift finds equal (canonically equivalent, or
            // equal once its marks are dropped), which ours keeps apart as distinct bytes: compare
            // by those groups, and byte for byte where a group holds one name.
            let theirs = Dictionary(grouping: other, by: { String(decoding: withoutMarks($0.key), as: UTF8.self) })
            let ours = Dictionary(grouping: object.members, by: { String(decoding: withoutMarks($0.name), as: UTF8.self) })
            guard theirs.count == ours.count else { return false }
            return ours.allSatisfy { name, members in
                guard let candidates = theirs[name] else { return false }
                if members.count == 1, candidates.count == 1 {
                    return withoutMarks(members[0].name) == withoutMarks(candidates[0].key) && agrees(members[0].value, candidates[0].value)
                }
                return candidates.allSatisfy { candidate in members.contains { agrees($0.value, candidate.value) } }
            }
        }
    }

    /// The string without U+FEFF, for comparing with Foundation.
    ///
    /// Foundation decodes each run of a string between escapes as if it were a document of its
    /// own, so it drops a U+FEFF at the start of a string or member name and right after each
    /// escape as a byte-order mark; inside JSON it is an ordinary character, which ours keeps.
    /// Past those marks the two must agree byte for byte.
    static func withoutMarks(_ string: String) -> [UInt8] {
        Array(String(String.UnicodeScalarView(string.unicodeScalars.filter { $0 != "\u{FEFF}" })).utf8)
    }
}
