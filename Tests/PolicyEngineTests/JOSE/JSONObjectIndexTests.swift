@testable import PolicyRuntime
@testable import PolicyJOSE
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
        #"{"n":01}"#, #"{"n":1e400}"#, #"{"n":-0}"#, #"{"n":123456789012345678901234567890}"#, #"{"n":-9223372036854775808}"#, #"{"n":1.5e3}"#,
        #"{"a":1} x"#, #"  {"a":1}  "#, "\u{FEFF}{}", #"{}"#, #"[]"#, #""a""#, #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":tru}"#, #"{"a":1"#, "",
        #"{"iss":"https://issuer.example","aud":["a","b"],"exp":1795256400,"nested":{"k":[null,false,true]},"e":"x\"y"}"#,
    ]

    @Test("the index refuses what the parser refuses and reads what it reads", arguments: texts)
    func agreesWithParser(text: String) throws {
        let bytes = Array(text.utf8)
        let parsed = Result { () throws(JOSEError) in try JSONParser(maxDepth: 4).parse(bytes) }
        let indexed = Result { () throws(JOSEError) in try JSONObjectIndex(bytes, maxDepth: 4) }
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
