@testable import PolicyJOSE
import Testing

/// The C scan of an object against a held layout (`JSONCommonScan.members(of:following:)`)
/// against `JSONCursor`: whatever it accepts, the cursor accepts with the same members.
@Suite("JSON layout scan")
struct JSONLayoutScanTests {
    /// The layout of `text` as the index remembers it, or nil when it has none (escaped names,
    /// too many members, a text the cursor refuses).
    static func shape(of text: [UInt8]) -> JSONObjectShape? {
        guard case .success(let members) = JSONCommonScanTests.full(text) else { return nil }
        return members.withUnsafeBufferPointer { placed in
            text.withUnsafeBufferPointer { JSONObjectShape(placed, text: $0, registered: RegisteredClaimPositions(placed, escapedNames: [:])) }
        }
    }

    /// The members the C scan reads from `text` following `shape`, or nil when it declines.
    static func following(_ shape: JSONObjectShape, _ text: [UInt8], maxDepth: Int = 64) -> [JSONObjectIndex.Member]? {
        var members: [JSONObjectIndex.Member] = []
        let accepted = text.withUnsafeBufferPointer { JSONCommonScan.members(of: $0, following: shape, maxDepth: maxDepth, into: &members) }
        return accepted ? members : nil
    }

    /// Fails unless the C scan's answer on `text` following `shape` is one the cursor agrees
    /// with; returns whether the C scan read it.
    @discardableResult
    static func agree(_ shape: JSONObjectShape, _ text: [UInt8], maxDepth: Int = 64, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        JSONCommonScanTests.agree(following(shape, text, maxDepth: maxDepth), readFrom: text, by: "the layout scan", maxDepth: maxDepth,
                                  sourceLocation: sourceLocation)
    }

    @Test("reads texts that follow a layout, whitespace and nested values included")
    func readsFollowingTexts() throws {
        let shape = try #require(Self.shape(of: Array(JSONCommonScanTests.claims.utf8)))
        let texts = [JSONCommonScanTests.claims,
                     #"{"iss":"https://other.example","sub":"u","aud":["a","b"],"iat":0,"exp":{"x":[1,{"y":null}]},"jti":true,"scope":false}"#,
                     " {\n \"iss\" : \"a\" ,\t\"sub\":\"b\", \"aud\":\"c\",\"iat\":1,\"exp\":2,\"jti\":\"d\",\"scope\":\"e\" }\r\n"]
        for text in texts {
            #expect(Self.agree(shape, Array(text.utf8)), "the layout scan declined \(text)")
        }
        let members = try #require(Self.following(shape, Array(JSONCommonScanTests.claims.utf8)))
        #expect(members.map(\.kind) == [.string, .string, .string, .number, .number, .string, .string])
        #expect(members[4].integer == 1_795_256_400)
    }

    @Test("leaves other layouts, other values, duplicates, depth and errors to the cursor")
    func declines() throws {
        let shape = try #require(Self.shape(of: Array(#"{"iss":"a","abcdefghij":1,"o":{}}"#.utf8)))
        let declined = [#"{"iss":"a","abcdefghij":1}"#, #"{"iss":"a","abcdefghij":1,"o":{},"p":1}"#, #"{"iss":"a","abcdefghik":1,"o":{}}"#,
                        #"{"abcdefghij":1,"iss":"a","o":{}}"#, #"{"is":"a","abcdefghij":1,"o":{}}"#, #"{"issx":"a","abcdefghij":1,"o":{}}"#,
                        #"{"iss":"\n","abcdefghij":1,"o":{}}"#, #"{"iss":"é","abcdefghij":1,"o":{}}"#, #"{"iss":"a","abcdefghij":-1,"o":{}}"#,
                        #"{"iss":"a","abcdefghij":1.5,"o":{}}"#, #"{"iss":"a","abcdefghij":01,"o":{}}"#, #"{"iss":"a","abcdefghij":1,"o":{"k":1,"k":2}}"#,
                        #"{"iss":"a","abcdefghij":1,"o":{},}"#, #"{"iss":"a","abcdefghij":1,"o":{}}x"#, #"{"iss":"a","abcdefghij":1,"o":{"#,
                        #"{"iss":"a","abcdefghij":1,"o":[[[[[[[[[1]]]]]]]]]}"#, #"{"iss":"a","abcdefghij":1 "o":{}}"#, #"{"iss":"a","abcdefghij":tru,"o":{}}"#,
                        #"{"iss":"a","abcdefghij":1,"o":{}"#, "{\"iss\":\"a\u{1}\",\"abcdefghij\":1,\"o\":{}}", #"{"iss""a","abcdefghij":1,"o":{}}"#]
        for text in declined {
            #expect(Self.following(shape, Array(text.utf8)) == nil, "the layout scan read \(text)")
        }
        #expect(Self.following(shape, Array(#"{"iss":"a","abcdefghij":1,"o":{"b":1}}"#.utf8), maxDepth: 1) == nil)
        #expect(Self.following(shape, Array(#"{"iss":"a","abcdefghij":1,"o":{"b":1}}"#.utf8), maxDepth: 2) != nil)
    }

    @Test("agrees with the cursor on 20,000 generated texts, each with its own layout and a mutation of it")
    func agreesOnGeneratedTexts() {
        var random = SplitMix(seed: 0x1A70_0175)
        var accepted = 0, mutatedAccepted = 0
        for round in 0..<10_000 {
            let text = Array(JSONCommonScanTests.object(&random, depth: 1).utf8)
            guard let shape = Self.shape(of: text) else { continue }
            if Self.agree(shape, text, maxDepth: 1 + round % 4) { accepted += 1 }
            // A second object of the same names with other values, and a mutation of it.
            let sibling = Self.replacing(Array("value-".utf8), with: Array("v".utf8), in: text)
            Self.agree(shape, sibling, maxDepth: 1 + round % 4)
            if Self.agree(shape, JSONCommonScanTests.mutated(sibling, &random), maxDepth: 1 + round % 4) { mutatedAccepted += 1 }
        }
        // The generator writes common objects often enough that the layout scan is exercised, and
        // the mutations keep some of them readable: neither count may fall to nothing.
        #expect(accepted > 2_000)
        #expect(mutatedAccepted > 200)
    }

    /// `text` with every occurrence of `pattern` replaced by `replacement`.
    static func replacing(_ pattern: [UInt8], with replacement: [UInt8], in text: [UInt8]) -> [UInt8] {
        var result: [UInt8] = [], index = 0
        while index < text.count {
            if index + pattern.count <= text.count, text[index..<index + pattern.count].elementsEqual(pattern) {
                result += replacement
                index += pattern.count
            } else {
                result.append(text[index])
                index += 1
            }
        }
        return result
    }
}
