@testable import PolicyJOSE
import Testing

/// The C scan of common objects (`JSONCommonScan`) against `JSONCursor`: whatever the C scan
/// accepts, the cursor accepts with the same members, and what it declines it leaves alone.
@Suite("JSON common-case scan")
struct JSONCommonScanTests {
    /// The members the C scan reads from `text`, or nil when it leaves the text to the cursor.
    static func common(_ text: [UInt8], maxDepth: Int = 64) -> [JSONObjectIndex.Member]? {
        var members: [JSONObjectIndex.Member] = []
        let accepted = text.withUnsafeBufferPointer { JSONCommonScan.members(of: $0, maxDepth: maxDepth, into: &members) }
        return accepted ? members : nil
    }

    /// The members the cursor reads from `text`, as `JSONObjectIndex.make` reads them, or the error.
    static func full(_ text: [UInt8], maxDepth: Int = 64) -> Result<[JSONObjectIndex.Member], JOSEError> {
        text.withUnsafeBufferPointer { buffer in
            var members: [JSONObjectIndex.Member] = [], escapedNames: [Int: String] = [:]
            var cursor = JSONCursor(bytes: buffer, maxDepth: maxDepth)
            do throws(JOSEError) {
                cursor.skipWhitespace()
                guard cursor.index < buffer.count, buffer[cursor.index] == UInt8(ascii: "{") else { throw JOSEError(.invalidJSON, "not a JSON object") }
                try cursor.skipObject(depth: 1, members: &members, escapedNames: &escapedNames)
                guard cursor.isAtEndAfterWhitespace() else { throw cursor.error("unexpected content after the JSON value") }
                return .success(members)
            } catch {
                return .failure(error)
            }
        }
    }

    static func same(_ lhs: JSONObjectIndex.Member, _ rhs: JSONObjectIndex.Member) -> Bool {
        lhs.nameStart == rhs.nameStart && lhs.nameEnd == rhs.nameEnd && lhs.valueStart == rhs.valueStart && lhs.valueEnd == rhs.valueEnd
            && lhs.kind == rhs.kind && lhs.nameWord == rhs.nameWord && lhs.plainName == rhs.plainName && lhs.plainValue == rhs.plainValue
            && lhs.integer == rhs.integer
    }

    /// Fails unless the C scan's answer on `text` is one the cursor agrees with; returns whether
    /// the C scan read it.
    @discardableResult
    static func agree(_ text: [UInt8], maxDepth: Int = 64, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        agree(common(text, maxDepth: maxDepth), readFrom: text, by: "the C scan", maxDepth: maxDepth, sourceLocation: sourceLocation)
    }

    /// Fails unless `scanned`, the members a scan named `scan` read from `text` (nil when it
    /// declined it), are the cursor's; returns whether the scan read the text.
    static func agree(_ scanned: [JSONObjectIndex.Member]?, readFrom text: [UInt8], by scan: String, maxDepth: Int,
                      sourceLocation: SourceLocation) -> Bool {
        guard let scanned else { return false }
        switch full(text, maxDepth: maxDepth) {
        case .failure(let error):
            Issue.record("\(scan) accepted what the cursor refuses (\(error.message)): \(String(decoding: text, as: UTF8.self))", sourceLocation: sourceLocation)
        case .success(let members):
            #expect(members.count == scanned.count && zip(members, scanned).allSatisfy(same), "members differ: \(String(decoding: text, as: UTF8.self))",
                    sourceLocation: sourceLocation)
        }
        return true
    }

    static let claims = #"{"iss":"https://issuer.example","sub":"user-0","aud":"api://bench","iat":1795252800,"exp":1795256400,"jti":"jti-0","scope":"openid profile orders:read"}"#

    @Test("reads a claims set and a record line as the cursor does")
    func readsCommonObjects() throws {
        let texts = [Self.claims, #"{"token":"eyJhbGciOiJIUzI1NiJ9.e30.abc","ts":1795253400}"#, "{}", " \t\r\n{ } \n",
                     #"{"aud":["a","b"],"realm_access":{"roles":["x","y"]},"email_verified":true,"x":null,"n":0,"f":false}"#,
                     "{ \"a\" : 1 , \"abcdefghij\" : \"k\u{7F}\" , \"abcdefghik\":[ [ ] , { } ] }"]
        for text in texts {
            #expect(Self.agree(Array(text.utf8)), "the C scan declined \(text)")
        }
        let members = try #require(Self.common(Array(Self.claims.utf8)))
        #expect(members.map(\.kind) == [.string, .string, .string, .number, .number, .string, .string])
        #expect(members[3].integer == 1_795_252_800)
    }

    @Test("leaves escapes, UTF-8, other numbers, duplicates, depth, size and errors to the cursor")
    func declines() {
        let declined = [#"{"a":"\n"}"#, #"{"\u0061":1}"#, #"{"a":"é"}"#, #"{"é":1}"#, #"{"a":-1}"#, #"{"a":1.5}"#, #"{"a":1e3}"#,
                        #"{"a":1234567890123456789}"#, #"{"a":01}"#, #"{"a":1,"a":2}"#, #"{"abcdefghij":1,"abcdefghij":2}"#,
                        #"{"o":{"a":1,"a":2}}"#, #"{"a":[[[[[[[[[1]]]]]]]]]}"#, #"{"a":1,}"#, #"{"a":1}x"#, #"[1]"#, "", "{",
                        #"{"a":tru}"#, #"{"a":"x"#, "{\"a\":\"\u{1}\"}", "\u{FEFF}{}", #"{"a" 1}"#, #"{a:1}"#, #"{"a":1 "b":2}"#,
                        "{" + (0..<17).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"]
        for text in declined {
            #expect(Self.common(Array(text.utf8)) == nil, "the C scan read \(text)")
            Self.agree(Array(text.utf8))
        }
        #expect(Self.common(Array(#"{"a":{"b":1}}"#.utf8), maxDepth: 1) == nil)
        #expect(Self.common(Array(#"{"a":{"b":1}}"#.utf8), maxDepth: 2) != nil)
        #expect(Self.common(Array("{}".utf8), maxDepth: 0) == nil)
        #expect(Self.common(Array(("{" + (0..<16).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)) != nil)
    }

    @Test("agrees with the cursor on 40,000 generated and mutated texts")
    func agreesOnGeneratedTexts() {
        var random = SplitMix(seed: 0x5EED_C0DE)
        var accepted = 0, mutatedAccepted = 0
        for round in 0..<20_000 {
            let text = Array(Self.object(&random, depth: 1).utf8)
            if Self.agree(text, maxDepth: 1 + round % 4) { accepted += 1 }
            if Self.agree(Self.mutated(text, &random), maxDepth: 1 + round % 4) { mutatedAccepted += 1 }
        }
        // The generator writes common objects often enough that the C scan is exercised, and the
        // mutations keep some of them common: neither count may fall to nothing.
        #expect(accepted > 5_000)
        #expect(mutatedAccepted > 1_000)
    }

    static let alphabet = Array(#"{}[]":,"\ atfnru0123456789-.eE"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]

    /// `text` with one to four bytes replaced, removed or inserted at random places.
    static func mutated(_ text: [UInt8], _ random: inout SplitMix) -> [UInt8] {
        var mutated = text
        for _ in 0...random.next(3) {
            let position = random.next(mutated.count)
            switch random.next(3) {
            case 0: mutated[position] = alphabet[random.next(alphabet.count)]
            case 1: mutated.remove(at: position)
            default: mutated.insert(alphabet[random.next(alphabet.count)], at: position)
            }
            if mutated.isEmpty { break }
        }
        return mutated
    }

    static func object(_ random: inout SplitMix, depth: Int) -> String {
        let plain = ["iss", "sub", "aud", "exp", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefghik", "x", "", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"]
        let count = random.next(depth == 1 ? 19 : 4)
        var names: [String] = []
        for position in 0..<count {
            switch random.next(40) {
            case 0: names.append(["a\\\"b", "é", "\\u0061", "a\u{1}"][random.next(4)])
            case 1 where position > 0: names.append(names[random.next(position)])
            default: names.append(plain[position % plain.count])
            }
        }
        let members = names.map { "\"\($0)\"\(space(&random)):\(space(&random))\(value(&random, depth: depth))" }
        return "\(space(&random)){\(members.joined(separator: ",\(space(&random))"))}\(space(&random))"
    }

    static func value(_ random: inout SplitMix, depth: Int) -> String {
        switch random.next(40) {
        case 0...2: return depth < 9 ? object(&random, depth: depth + 1) : "1"
        case 3...5: return depth < 9 ? "[" + (0..<random.next(3)).map { _ in value(&random, depth: depth + 1) }.joined(separator: ",") + "]" : "2"
        case 6...9: return ["true", "false", "null"][random.next(3)]
        case 10: return ["0", "-1", "1.5", "1e3", "123456789012345678", "1234567890123456789", "007", "-0", "1E+2"][random.next(9)]
        case 11: return "\"\(["é", "\\n", "\\u0041", "\u{7F}", "tab\there", "\\\""][random.next(6)])\""
        case 12...25: return String(random.next(2_000_000_000))
        default: return "\"value-\(random.next(1000))\""
        }
    }

    static func space(_ random: inout SplitMix) -> String {
        [" ", "", "", "", "\n", "\t ", "\r\n"][random.next(7)]
    }
}

/// A small seeded generator, so a failure repeats.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return bound <= 0 ? 0 : Int(mixed % UInt64(bound))
    }
}
