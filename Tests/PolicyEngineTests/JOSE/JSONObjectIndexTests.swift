@testable import PolicyRuntime
@_spi(RuleAuthoring) @testable import PolicyJOSE
import Testing

@Suite("JSON objects read in place")
struct JSONObjectIndexTests {
    /// Texts the parser refuses for each of its reasons, and objects it accepts that the index
    /// must read as it does: duplicates spelled with and without escapes, in small and large
    /// objects and nested ones, depth, UTF-8, numbers, surrounding bytes.
    static let texts: [String] = [
        #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"a":2}"#, #"{"é":1,"\u00e9":2}"#,
        #"{"x":{"b":1,"b":2}}"#, #"{"x":[{"b":1,"\u0062":2}]}"#,
        "{" + (0..<20).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + ",\"m7\":0}",
        "{" + (0..<20).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + ",\"m\\u0037\":0}",
        "{" + (0..<20).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}",
        #"{"a":[[[[1]]]]}"#, #"{"a":{"b":{"c":{"d":{}}}}}"#,
        #"{"s":"\ud800"}"#, #"{"s":"\udc00x"}"#, #"{"s":"\ud83d\ude00"}"#, "{\"s\":\"\u{7}\"}", #"{"s":"tab\tx"}"#,
        #"{"n":123456789012345678,"m":1234567890123456789,"z":0,"h":0.5,"x":10e2,"y":1E3,"w":9223372036854775807,"v":9223372036854775808}"#,
        #"{"n":00}"#, #"{"n":0 }"#, #"{"n":7}"#, #"{"n":-7,"m":[12,3.0]}"#, #"{"n":1"#, #"{"n":12x}"#,
        #"{"n":01}"#, #"{"n":1e400}"#, #"{"n":-0}"#, #"{"n":123456789012345678901234567890}"#, #"{"n":-9223372036854775808}"#, #"{"n":1.5e3}"#,
        #"{"a":1} x"#, #"  {"a":1}  "#, "\u{FEFF}{}", #"{}"#, #"[]"#, #""a""#, #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":tru}"#, #"{"a":1"#, "",
        #"{"iss":"https://issuer.example","aud":["a","b"],"exp":1795256400,"nested":{"k":[null,false,true]},"e":"x\"y"}"#,
        // A byte the string scan must stop at, in the middle of an eight-byte word.
        #"{"ab\"c":"abc\\defghijklmnop","é":"ünïcödé ok","t":"abcdefg\u0001hij"}"#, "{\"s\":\"abcdefghij\u{1}kl\"}",
    ]

    @Test("the index refuses what the parser refuses and reads what it reads", arguments: texts)
    func agreesWithParser(text: String) throws {
        let bytes = Array(text.utf8)
        let parsed = Result { () throws(JOSEError) in try JSONParser(maxDepth: 4).parse(bytes) }
        let indexed = Result { () throws(JOSEError) in try JSONObjectIndex.make(bytes, maxDepth: 4) }
        guard case let .success(.object(object)) = parsed else {
            #expect(throws: JOSEError.self) { try indexed.get() }
            return
        }
        let index = try indexed.get()
        #expect(index.count == object.count)
        for (position, member) in object.members.enumerated() {
            #expect(index.name(at: position) == member.name)
            #expect(index.position(of: member.name) == position)
            #expect(index.value(at: position) == member.value)
            #expect(index.kind(at: position) == member.value.kind)
        }
        #expect(index.position(of: "absent") == nil)
        #expect(index.position(of: JSONMemberName("absent")) == nil)
        for claim in RegisteredClaim.allCases {
            #expect(index.position(of: claim) == index.position(of: claim.description), "\(claim)")
        }
    }

    /// The scan a record line goes through first answers only what the index would, and
    /// leaves to it whatever it cannot: refusals, escaped names, many members.
    @Test("a stack scan finds what the index finds, or leaves the text to it", arguments: texts + [
        #"{"token":"a.b.c","ts":1795253400}"#, #"{"ts":null,"token":"x"}"#, #"{"token":"a\"b","ts":"2026-11-21T09:45:00Z"}"#,
        #"{"\u0074oken":"a.b.c"}"#, "{" + (0..<17).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + ",\"token\":\"t\"}",
        "{" + (0..<15).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + ",\"token\":\"t\"}",
    ])
    func scanAgreesWithIndex(text: String) throws {
        let bytes = Array(text.utf8)
        let names = ["token", "ts", "a", "iss", "aud", "n", "s", "m14"]
        let indexed = try? JSONObjectIndex.make(bytes, maxDepth: 4)
        for first in names {
            for second in names where second != first {
                guard let (found, other) = JSONMemberScan.members(JSONMemberName(first), JSONMemberName(second), in: bytes, maxDepth: 4) else { continue }
                let index = try #require(indexed, "the scan answered for a text the index refuses: \(text)")
                #expect(index.escapedNames.isEmpty)
                for (name, member) in [(first, found), (second, other)] {
                    let position = index.position(of: name)
                    #expect((member == nil) == (position == nil), "\(name) in \(text)")
                    guard let member, let position else { continue }
                    #expect(member.kind == index.kind(at: position))
                    #expect(member.plainText == index.plainStringRange(at: position))
                    #expect(member.integer == index.integer(at: position))
                    #expect(try JSONParser(maxDepth: 4).parse(Array(bytes[member.range])) == index.value(at: position))
                }
            }
        }
        let tooMany = text.contains("m16") || text.contains("\\u0074")
        if tooMany { #expect(JSONMemberScan.members(JSONMemberName("token"), nil, in: bytes, maxDepth: 4) == nil) }
        if text.hasPrefix(#"{"token":"a.b.c""#) || (text.contains("m14") && !text.contains("m15")) {
            #expect(JSONMemberScan.members(JSONMemberName("token"), JSONMemberName("ts"), in: bytes, maxDepth: 4)?.first != nil)
        }
    }

    /// A line matched against the layout of the line before it (a token log's lines repeat
    /// theirs) is answered as a line scanned alone, whatever the line before was.
    @Test("a record line read against the previous line's layout reads as one read alone")
    func lineLayoutAgreesWithScan() {
        let lines = Self.texts + [
            #"{"token":"a.b.c","ts":1795253400}"#, #"{"token":"d.e.f","ts":1795253401}"#, #"{"token":"g.h.i", "ts" : 7}"#,
            #"{"token":"a\"b","ts":1}"#, #"{"token":"x","ts":1.5}"#, #"{"token":"x","ts":1}x"#, #"{"token":"x","ts":1,"ts":2}"#,
            #"{"ts":1795253400,"token":"a.b.c"}"#, #"{"token":"a.b.c","ts":{"a":[1,{"b":null}]}}"#, #"{"token":"a.b.c","ts":{"a":1,"a":2}}"#,
            #"{"token":"a.b.c","ts":[[[[[[[[[[1]]]]]]]]]]}"#, #"{"token":"a.b.c"}"#, #"{"token":"a.b.c","ts":1,"more":2}"#,
        ]
        let (token, time) = (JSONMemberName("token"), JSONMemberName("ts"))
        func same(_ lhs: (first: JSONMemberScan.Found?, second: JSONMemberScan.Found?)?, _ rhs: (first: JSONMemberScan.Found?, second: JSONMemberScan.Found?)?) -> Bool {
            func equal(_ a: JSONMemberScan.Found?, _ b: JSONMemberScan.Found?) -> Bool {
                a?.kind == b?.kind && a?.range == b?.range && a?.plain == b?.plain && a?.integer == b?.integer
            }
            guard let lhs, let rhs else { return lhs == nil && rhs == nil }
            return equal(lhs.first, rhs.first) && equal(lhs.second, rhs.second)
        }
        var followed = 0
        for before in lines {
            for line in lines {
                var layout = JSONLineLayout()
                _ = JSONMemberScan.members(token, time, in: Array(before.utf8), maxDepth: 4, layout: &layout)
                let alone = JSONMemberScan.members(token, time, in: Array(line.utf8), maxDepth: 4)
                let after = JSONMemberScan.members(token, time, in: Array(line.utf8), maxDepth: 4, layout: &layout)
                #expect(same(after, alone), "\(line) after \(before)")
                if before.hasPrefix(#"{"token":"#) && line.hasPrefix(#"{"token":"#) && after != nil { followed += 1 }
            }
        }
        #expect(followed > 20)
    }

    /// The layout the shape tests remember: names of three bytes, one past eight, a registered
    /// claim last.
    static let layout = #"{"iss":"https://issuer.example","sub":"u","a_name_past_eight":[1,{"k":null}],"exp":1795256400,"aud":"api"}"#

    /// Texts against the layout, and whether each follows it: the same names in the same order,
    /// as the layout writes them, whatever the values and the whitespace.
    static let againstLayout: [(text: String, follows: Bool)] = [
        (layout, true),
        (#"{"iss":"x\"y","sub":"\u00e9","a_name_past_eight":{},"exp":1.5,"aud":["a","b"]}"#, true),
        (" { \"iss\" :\t\"x\" ,\n\"sub\":\"u\",\"a_name_past_eight\":0,\"exp\":1 , \"aud\":\"api\" } ", true),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1,"aud":"api","nbf":2}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1,"aud":"api","iss":"y"}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1,"aud":"api"} {}"#, false),
        (#"{"sub":"u","iss":"x","a_name_past_eight":0,"exp":1,"aud":"api"}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eighth":0,"exp":1,"aud":"api"}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1,"\u0061ud":"api"}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":01,"aud":"api"}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":[[[[[0]]]]],"exp":1,"aud":"api"}"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1,"aud":"api""#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight":0,"exp":1,"au"#, false),
        (#"{"iss":"x","sub":"u","a_name_past_eight""#, false),
        (#"{"iss""#, false),
        ("{\"iss\":\"x\u{1}\",\"sub\":\"u\",\"a_name_past_eight\":0,\"exp\":1,\"aud\":\"api\"}", false),
    ]

    /// A claims set that repeats a layout seen before is indexed against it, and reads exactly as
    /// the scan reads it: the same members, values and registered claims, the same refusals.
    @Test("an object repeating a layout is indexed against it as the scan indexes it", arguments: againstLayout)
    func shapes(text: String, follows: Bool) throws {
        let shapes = JSONObjectShapes()
        let layout = Array(Self.layout.utf8)
        _ = try JSONObjectIndex.make(layout, maxDepth: 4, shapes: shapes)
        let shape = try #require(layout.withUnsafeBufferPointer { shapes.shape(startingAt: 1, of: $0) })
        let bytes = Array(text.utf8)
        let followed = bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(bytes: buffer, maxDepth: 4)
            cursor.skipWhitespace()
            var members: [JSONObjectIndex.Member] = []
            return buffer.count > cursor.index && cursor.skipObject(following: shape, members: &members) && cursor.isAtEndAfterWhitespace()
        }
        #expect(followed == follows)
        let scanned = Result { () throws(JOSEError) in try JSONObjectIndex.make(bytes, maxDepth: 4) }
        let shaped = Result { () throws(JOSEError) in try JSONObjectIndex.make(bytes, maxDepth: 4, shapes: shapes) }
        switch (scanned, shaped) {
        case let (.success(scanned), .success(shaped)):
            #expect(shaped.count == scanned.count)
            for position in 0..<scanned.count {
                #expect(shaped.name(at: position) == scanned.name(at: position))
                #expect(shaped.value(at: position) == scanned.value(at: position))
                #expect(shaped.kind(at: position) == scanned.kind(at: position))
                #expect(shaped.plainStringRange(at: position) == scanned.plainStringRange(at: position))
                #expect(shaped.position(of: JSONMemberName(scanned.name(at: position))) == position)
            }
            for claim in RegisteredClaim.allCases {
                #expect(shaped.position(of: claim) == scanned.position(of: claim), "\(claim)")
            }
        case let (.failure(scanned), .failure(shaped)):
            #expect(shaped == scanned)
        default:
            Issue.record("indexed against the layout: \(shaped), scanned: \(scanned)")
        }
    }

    /// Shapes are held for the objects they fit: small ones whose names are all plain, the
    /// newest in place of the oldest.
    @Test("only small objects with plain names are remembered, a few at a time")
    func shapesHeld() throws {
        let shapes = JSONObjectShapes()
        func held(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { shapes.shape(startingAt: bytes.firstIndex(of: UInt8(ascii: "\"")) ?? 0, of: $0) != nil }
        }
        for text in [#"{"\u0069ss":1,"b":2}"#, "{" + (0..<17).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}",
                     #"{"x":1,"x":2}"#, #"{}"#, "{\"" + String(repeating: "n", count: 600) + "\":1}"] {
            _ = try? JSONObjectIndex.make(Array(text.utf8), maxDepth: 4, shapes: shapes)
            #expect(!held(text), "\(text)")
        }
        let texts = (0...JSONObjectShapes.capacity).map { #"{"n\#($0)":1,"a":2}"# }
        for text in texts { _ = try JSONObjectIndex.make(Array(text.utf8), maxDepth: 4, shapes: shapes) }
        #expect(!held(texts[0]))
        #expect(texts.dropFirst().allSatisfy(held))
        // Layouts that start alike are each found, and one that fits is kept over newer ones.
        let sharing = (0..<JSONObjectShapes.capacity).map { #"{"iss":"x","m\#($0)":1}"# }
        for text in sharing + [sharing[0]] { _ = try JSONObjectIndex.make(Array(text.utf8), maxDepth: 4, shapes: shapes) }
        let bytes = Array(sharing[0].utf8)
        func heldShapes() -> [JSONObjectShape] {
            bytes.withUnsafeBufferPointer { buffer in (0..<JSONObjectShapes.capacity).compactMap { shapes.shape(startingAt: 1, of: buffer, skipping: $0) } }
        }
        #expect(heldShapes().count == JSONObjectShapes.capacity)
        _ = try JSONObjectIndex.make(Array(#"{"other":1}"#.utf8), maxDepth: 4, shapes: shapes)
        let kept = heldShapes()
        #expect(kept.count == JSONObjectShapes.capacity - 1)
        #expect(bytes.withUnsafeBufferPointer { buffer in kept.first.map { shape in
            var cursor = JSONCursor(bytes: buffer, maxDepth: 4)
            var members: [JSONObjectIndex.Member] = []
            return cursor.skipObject(following: shape, members: &members)
        } } == true, "the layout that fitted last is tried first")
    }

    /// The registered claims are found by their position, taken while indexing: each name
    /// exactly, written plainly or with escapes, and never a name that is only like one.
    @Test("registered claims are found by the positions taken while indexing")
    func registeredClaims() throws {
        let names = RegisteredClaim.allCases.map(\.description)
        let text = "{" + names.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let index = try JSONObjectIndex.make(Array(text.utf8), maxDepth: 4)
        for (position, claim) in RegisteredClaim.allCases.enumerated() {
            #expect(index.position(of: claim) == position, "\(claim)")
            #expect(JSONObjectView(try JSONParser().parseObject(Array(text.utf8), what: "a test"))[claim] == .number(.integer(Int64(position))))
        }
        let lookalikes = #"{"isS":1,"iss ":2,"nonc":3,"nonces":4,"ex":5,"expx":6,"a\u0075d":7,"\u006eonce":8,"n\u006fncE":9,"jt\u0069\u0000":10}"#
        let other = try JSONObjectIndex.make(Array(lookalikes.utf8), maxDepth: 4)
        for claim in RegisteredClaim.allCases {
            #expect(other.position(of: claim) == [RegisteredClaim.aud: 6, .nonce: 7][claim], "\(claim)")
        }
        // Far into a large object, a claim is found all the same.
        let long = "{" + (0..<300).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + ",\"exp\":1,\"iss\":\"x\"}"
        let wide = try JSONObjectIndex.make(Array(long.utf8), maxDepth: 4)
        #expect(wide.position(of: RegisteredClaim.exp) == 300)
        #expect(wide.position(of: RegisteredClaim.iss) == 301)
        #expect(wide.position(of: RegisteredClaim.aud) == nil)
    }

    /// Names alike in their first eight bytes and length, names of eight bytes or fewer ending
    /// the text's names, names with escapes, and the empty name: found by their words where
    /// those decide, and by their bytes where they do not.
    @Test("members are found and told apart by their first eight bytes, then the rest")
    func nameWords() throws {
        let text = #"{"abcdefgh1":1,"abcdefgh2":2,"abcdefgh":3,"abcdefg":4,"":5,"iss":6,"abcdefghij":7,"x":8}"#
        let index = try JSONObjectIndex.make(Array(text.utf8), maxDepth: 4)
        let expected = ["abcdefgh1": 0, "abcdefgh2": 1, "abcdefgh": 2, "abcdefg": 3, "": 4, "iss": 5, "abcdefghij": 6, "x": 7]
        for (name, position) in expected {
            #expect(index.position(of: name) == position, "\(name)")
            #expect(index.position(of: JSONMemberName(name)) == position, "\(name)")
        }
        for absent in ["abcdefgh3", "abcdefghi", "abcdef", "abcdefghijk", "i", "issx", "X"] {
            #expect(index.position(of: absent) == nil, "\(absent)")
            #expect(index.position(of: JSONMemberName(absent)) == nil, "\(absent)")
        }
        // Duplicates that differ from other names only past their eighth byte, or not at all.
        for duplicate in [#"{"abcdefghij":1,"abcdefghik":2,"abcdefghij":3}"#, #"{"abcdefgh":1,"abcdefgh":2}"#, #"{"":1,"":2}"#,
                          #"{"iss":1,"iss":2}"#] {
            #expect(throws: JOSEError.self, "\(duplicate)") { try JSONObjectIndex.make(Array(duplicate.utf8), maxDepth: 4) }
        }
        let view = try JSONObjectView(claimsPayload: Array(text.utf8), limits: .standard, what: "the JWS payload")
        #expect(view[JSONMemberName("abcdefgh2")] == .number(.integer(2)))
        #expect(view.kind(of: JSONMemberName("iss")) == .number)
        #expect(!view.string(JSONMemberName("x"), equals: "8"))
        let built = JSONObjectView(try CompactJWS.claimsSet(Array(text.utf8), limits: .standard, what: "x"))
        #expect(built[JSONMemberName("abcdefghij")] == .number(.integer(7)) && built.kind(of: JSONMemberName("abcdefg")) == .number)
    }

    @Test("a claims payload is refused with the parser's message, and read without building it")
    func claimsView() throws {
        let limits = TokenLimits.standard
        for text in [#"{"a":1,"\u0061":2}"#, #"[1]"#, #"{"a":"#] {
            let payload = Array(text.utf8)
            let expected = Result { () throws(JOSEError) in try CompactJWS.claimsSet(payload, limits: limits, what: "the JWS payload") }
            let viewed = Result { () throws(JOSEError) in try JSONObjectView(claimsPayload: payload, limits: limits, what: "the JWS payload") }
            guard case let .failure(error) = expected, case let .failure(other) = viewed else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(error == other)
        }
        let claims = try JSONObjectView(claimsPayload: Array(#"{"iss":"https://issuer.example","k":"\u212a","exp":1795256400,"aud":["a"]}"#.utf8), limits: limits, what: "the JWS payload")
        #expect(claims.string("iss", equals: "https://issuer.example"))
        #expect(!claims.string("iss", equals: "https://issuer.exampl"))
        // U+212A KELVIN SIGN is canonically equivalent to K, and still not equal to it.
        #expect(claims.string("k", equals: "\u{212A}") && !claims.string("k", equals: "K"))
        #expect(claims["exp"] == .number(.integer(1_795_256_400)))
        #expect(claims.kind(of: "aud") == .array && claims.kind(of: "sub") == nil)
        #expect(claims.names == ["iss", "k", "exp", "aud"])
        #expect(claims.object == (try CompactJWS.claimsSet(Array(#"{"iss":"https://issuer.example","k":"\u212a","exp":1795256400,"aud":["a"]}"#.utf8), limits: limits, what: "x")))
    }
}
